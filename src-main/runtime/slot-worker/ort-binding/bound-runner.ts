import {
  GRAPH_IO,
  LENGTH_INPUTS,
  LOGITS_TO_KEEP_INPUTS,
  kvNamesOf,
  pastName,
  pastOf,
  presentName,
} from '../../model/graph-io-names';
import { KEEP_INPUT } from '../../model/onnx-graph/keep-last-logits';
import { NEW_COLUMN_INDEX } from '../../model/onnx-graph/present-deltas';
import { halfArrayToFloat32 } from '../../model/float16';
import type { LogitsWanted } from '../forward-feeds';
import type { RunnerSpec } from '../model-runner';
import type { RunnerOptions } from '../session-options';
import { ELEMENT_TYPE, loadBoundOrt } from './bound-library';
import type { NativeBoundSession } from './bound-library';
import { boundSessionConfigOf } from './bound-session-config';
import { markStep } from '../step-trace';
import { SlotKv } from './slot-kv';
import type { RowRange } from './slot-kv';

/** What a bound forward returns: logits [rows, numPositions, vocab], valid until the next forward. */
export interface BoundForwardResult {
  logits: Float32Array;
  vocabSize: number;
  numPositions: number;
}

/**
 * Which thread runs a bound forward: 'pool' (the libuv pool: the caller's event loop goes on) or
 * 'caller' (the calling thread waits for it: no hop to the pool and back, and no second thread
 * woken beside ONNX Runtime's; for a thread with nothing else to do meanwhile, never the main one).
 */
export type RunThread = 'pool' | 'caller';

/** The slot-sized limits of a bound runner's K/V buffer. */
export interface BoundKvSize {
  maxRows: number;
  /** Tokens each row can hold (the past plus the forward's new ones). */
  capacity: number;
  vocabSize: number;
}

/**
 * Runs a GroupQueryAttention graph through ONNX Runtime's C API with one I/O binding over the
 * slot's K/V buffer (`SlotKv`): each layer's past input and present output are the same memory,
 * so the kernel appends each row's new columns after its own tokens in place, neither zeroing
 * the present nor copying the past, and nothing is copied back out (onnxruntime-node copies every
 * fetched output). Logits land in a buffer bound once per shape. Forwards run on `runThread`.
 */
export class BoundRunner {
  private readonly pastNames: string[];
  private readonly presentNames: string[];
  /** Grown to the largest logits a forward asked for ('all' positions of a prefill chunk are rare). */
  private logits: Float32Array | Uint16Array;
  private boundRows = '';
  private boundLogits = '';
  private readonly keepLast = BigInt64Array.of(1n);
  private readonly keepAll = BigInt64Array.of(0n);

  private constructor(
    private readonly session: NativeBoundSession,
    readonly spec: RunnerSpec,
    private slotKv: SlotKv,
    private readonly size: BoundKvSize,
    private readonly keepInput: string | null,
    /** The slot rewrite's gathered-delta index (a cached optimized graph has it): fed zeros, its outputs unread. */
    private readonly hasNewColumnIndex: boolean,
    /** Where forwards run; 'caller' only where the addon has runHere (open falls back to 'pool'). */
    readonly runThread: RunThread,
  ) {
    const { numLayers } = spec.geometry;
    this.pastNames = kvNamesOf(numLayers, pastName);
    this.presentNames = kvNamesOf(numLayers, presentName);
    this.logits = this.logitsArray(size.maxRows * size.vocabSize);
  }

  /**
   * Builds the session (from a graph file or bytes, with the slot's session options) and the K/V
   * buffer. Rejects with the reason when the bound path cannot run this graph here; the caller
   * then keeps onnxruntime-node.
   */
  static async open(
    source: string | Uint8Array,
    spec: RunnerSpec,
    options: RunnerOptions,
    size: BoundKvSize,
    runThread: RunThread = 'pool',
  ): Promise<BoundRunner> {
    const ort = loadBoundOrt();
    if (!ort.isAvailable) throw new Error(`bound run path unavailable: ${ort.reason}`);
    if (!spec.io.hasLengthInputs || spec.geometry.rows !== 'start')
      throw new Error(
        `${spec.file}: the bound run path needs a GroupQueryAttention graph (${GRAPH_IO.seqlensK})`,
      );
    const session = await ort.create(source, boundSessionConfigOf(options));
    const problem = ioProblem(session, spec);
    if (problem) {
      session.release();
      throw new Error(problem);
    }
    const keepInput =
      spec.io.logitsToKeepInput ?? (session.inputNames.includes(KEEP_INPUT) ? KEEP_INPUT : null);
    const kv = new SlotKv(spec.geometry, size.maxRows, size.capacity);
    const hasNewColumnIndex = session.inputNames.includes(NEW_COLUMN_INDEX);
    const thread = runThread === 'caller' && session.runHere ? 'caller' : 'pool';
    return new BoundRunner(session, spec, kv, size, keepInput, hasNewColumnIndex, thread);
  }

  /**
   * Runs `numNew` tokens (row-major `inputIds`) on top of `rows` of the K/V buffer and records
   * them there. A multi-token forward over a past takes one row (GroupQueryAttention).
   */
  async forward(
    rows: RowRange,
    inputIds: BigInt64Array,
    numNew: number,
    wanted: LogitsWanted = 'last',
  ): Promise<BoundForwardResult> {
    const problem = this.kv.capacityProblem(rows, numNew);
    if (problem) throw new Error(problem);
    if (inputIds.length !== rows.count * numNew)
      throw new Error(`${inputIds.length} ids for ${rows.count} × ${numNew}`);
    this.bindKv(rows);
    const numPositions = wanted === 'last' && this.keepInput ? 1 : numNew;
    const logits = this.bindLogits(rows.count, numPositions);
    this.bindSteps(rows, inputIds, numNew, wanted);
    // The step-profile bench's stamps (step-trace-runs.ts stamps onnxruntime-node's runs alike).
    markStep('runStarted');
    if (this.runThread === 'caller') this.session.runHere!();
    else await this.session.run();
    markStep('runEnded');
    this.kv.advance(rows, numNew);
    return {
      logits: logits instanceof Uint16Array ? halfArrayToFloat32(logits) : logits,
      vocabSize: this.size.vocabSize,
      numPositions,
    };
  }

  /** The slot's K/V buffer (a new object after `ensureSize` grew it). */
  get kv(): SlotKv {
    return this.slotKv;
  }

  /**
   * Grows the K/V buffer (rows kept) so it has `numRows` rows and each can hold `numTokens`:
   * rows to exactly the seats asked for, the capacity in steps of whole `pageSize`-token pages
   * (about ROOM_STEP tokens each; ROOM_STEP itself with paging off), so the buffer stays within
   * a step of what the scheduler admitted while a long answer relayouts once a step, not per
   * token. The slot reports the buffer's real bytes (`kv.bytes`) on its card.
   */
  ensureSize(numRows: number, numTokens: number, pageSize = 0): void {
    const kv = this.slotKv;
    if (numRows <= kv.maxRows && numTokens <= kv.capacity) return;
    const step = pageSize > 0 ? Math.ceil(ROOM_STEP / pageSize) * pageSize : ROOM_STEP;
    const maxRows = Math.max(kv.maxRows, numRows);
    const capacity = Math.max(kv.capacity, Math.ceil(numTokens / step) * step);
    this.slotKv = kv.grown(maxRows, capacity);
    this.boundRows = '';
  }

  /**
   * Lays the K/V buffer out as `numRows` rows × `capacity` tokens, keeping old rows `keep` as
   * rows 0 … keep.length − 1 (the scheduler's grant: it shrinks as well as grows).
   */
  relay(keep: readonly number[], numRows: number, capacity: number): void {
    this.slotKv = this.slotKv.relaid(keep, numRows, capacity);
    this.boundRows = '';
  }

  /** Whose GroupQueryAttention kernel runs this session ("grouped": the addon's). */
  get attention(): string {
    return this.session.attention;
  }

  /** Ends profiling (a runner built with `profileFilePrefix`): the profile file's path. */
  endProfiling(): string {
    return this.session.endProfiling();
  }

  /** Frees the session; the K/V buffer goes with the runner. */
  release(): void {
    this.session.release();
  }

  /** Binds the K/V views of `rows` as past and present (rebinding only when the rows change). */
  private bindKv(rows: RowRange): void {
    const key = `${rows.first}+${rows.count}`;
    if (key === this.boundRows) return;
    const { numKvHeads, headDim, kvDtype } = this.spec.geometry;
    const dims = [rows.count, numKvHeads, this.kv.capacity, headDim];
    const type = ELEMENT_TYPE[kvDtype];
    this.kv.viewsOf(rows).forEach((view, i) => {
      this.session.bindInput(this.pastNames[i]!, view, dims, type);
      this.session.bindOutput(this.presentNames[i]!, view, dims, type);
    });
    this.boundRows = key;
  }

  private logitsArray(length: number): Float32Array | Uint16Array {
    return this.spec.io.logitsDtype === 'float16' ? new Uint16Array(length) : new Float32Array(length);
  }

  private bindLogits(numRows: number, numPositions: number): Float32Array | Uint16Array {
    const length = numRows * numPositions * this.size.vocabSize;
    if (length > this.logits.length) {
      this.logits = this.logitsArray(length);
      this.boundLogits = '';
    }
    const view = this.logits.subarray(0, length);
    const key = `${numRows}x${numPositions}`;
    if (key !== this.boundLogits) {
      const type = ELEMENT_TYPE[this.spec.io.logitsDtype];
      this.session.bindOutput(GRAPH_IO.logits, view, [numRows, numPositions, this.size.vocabSize], type);
      this.boundLogits = key;
    }
    return view;
  }

  /** The step's own inputs: ids, GroupQueryAttention's lengths, positions and logits to keep. */
  private bindSteps(rows: RowRange, inputIds: BigInt64Array, numNew: number, wanted: LogitsWanted): void {
    const numRows = rows.count;
    const seqlensK = new Int32Array(numRows);
    let longest = 0;
    for (let r = 0; r < numRows; r++) {
      const numTokens = this.kv.numTokensOf(rows.first + r);
      seqlensK[r] = numTokens + numNew - 1;
      longest = Math.max(longest, numTokens);
    }
    this.session.bindInput(GRAPH_IO.inputIds, inputIds, [numRows, numNew], ELEMENT_TYPE.int64);
    this.session.bindInput(GRAPH_IO.seqlensK, seqlensK, [numRows], ELEMENT_TYPE.int32);
    this.session.bindInput(
      GRAPH_IO.totalSequenceLength,
      Int32Array.of(longest + numNew),
      [],
      ELEMENT_TYPE.int32,
    );
    if (this.spec.io.hasPositionIds) {
      const positions = new BigInt64Array(numRows * numNew);
      for (let r = 0; r < numRows; r++)
        for (let j = 0; j < numNew; j++) positions[r * numNew + j] = BigInt(seqlensK[r]! - numNew + 1 + j);
      this.session.bindInput(GRAPH_IO.positionIds, positions, [numRows, numNew], ELEMENT_TYPE.int64);
    }
    if (this.hasNewColumnIndex) {
      const dims = [numRows, this.spec.geometry.numKvHeads, numNew, 1];
      const index = new BigInt64Array(dims.reduce((a, b) => a * b, 1));
      this.session.bindInput(NEW_COLUMN_INDEX, index, dims, ELEMENT_TYPE.int64);
    }
    if (this.keepInput)
      this.session.bindInput(
        this.keepInput,
        wanted === 'last' ? this.keepLast : this.keepAll,
        [],
        ELEMENT_TYPE.int64,
      );
  }
}

/** About how many tokens a row's capacity grows by at a time (rounded to whole pages). */
const ROOM_STEP = 256;

/** Every input but the past that a bound forward may feed. */
const BOUND_INPUTS: ReadonlySet<string> = new Set([
  GRAPH_IO.inputIds,
  ...LENGTH_INPUTS,
  GRAPH_IO.positionIds,
  ...LOGITS_TO_KEEP_INPUTS,
  NEW_COLUMN_INDEX,
]);

/** Why a session lacks an input or output the bound path binds, or null. */
function ioProblem(session: NativeBoundSession, spec: RunnerSpec): string | null {
  const inputs = new Set(session.inputNames);
  const outputs = new Set(session.outputNames);
  const { numLayers } = spec.geometry;
  for (const name of [GRAPH_IO.inputIds, ...LENGTH_INPUTS, ...kvNamesOf(numLayers, pastName)])
    if (!inputs.has(name)) return `${spec.file}: graph has no input "${name}"`;
  for (const name of [GRAPH_IO.logits, ...kvNamesOf(numLayers, presentName)])
    if (!outputs.has(name)) return `${spec.file}: graph has no output "${name}"`;
  const unfed = session.inputNames.find((name) => !BOUND_INPUTS.has(name) && !pastOf(name));
  return unfed ? `${spec.file}: the bound path does not feed input "${unfed}"` : null;
}

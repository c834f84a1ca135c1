import * as ort from 'onnxruntime-node';
import { fedInputsOf, missingIoOf } from '../model/decoder-io';
import { GRAPH_IO, kvNamesOf, presentName } from '../model/graph-io-names';
import { KEEP_INPUT } from '../model/onnx-graph/keep-last-logits';
import { NEW_COLUMN_INDEX, deltaNameOf } from '../model/onnx-graph/present-deltas';
import { rewriteForSlot } from '../model/onnx-graph/rewrite-for-slot';
import type { DecoderIo } from '../model/decoder-io';
import type { SlotRewrite } from '../model/onnx-graph/rewrite-for-slot';
import { halfArrayToFloat32 } from '../model/float16';
import type { ForwardKv, KvArray, KvBatch } from './kv-batch';
import { ForwardFeeds } from './forward-feeds';
import type { LogitsWanted } from './forward-feeds';
import type { KvGeometry } from '../model/kv-geometry';
import { sessionOptionsOf } from './session-options';
import type { RunnerOptions } from './session-options';

export type { RunnerOptions } from './session-options';

/**
 * What one forward returns: logits [rows, numPositions, vocab] as float32 (numPositions is 1 when
 * only the last position was asked for and the graph could skip the rest) and the K/V per layer
 * (key, value, …) in the graph's K/V dtype: only the new columns when the graph has delta outputs.
 */
export interface ForwardResult {
  logits: Float32Array;
  vocabSize: number;
  numPositions: number;
  kv: ForwardKv;
}

export type { LogitsWanted } from './forward-feeds';

/**
 * A variant's weights in memory: the ONNX bytes and each external data file by the name the graph
 * uses, or (`externalFolder`) none of them: ONNX Runtime maps them from that folder itself.
 */
export interface WeightBytes {
  bytes: Uint8Array;
  externalData: Array<{ path: string; data: Uint8Array }>;
  /** The folder ORT reads the graph's external data files from (the graph's own); null: `externalData` holds them. */
  externalFolder?: string | null;
}

/** How to feed the graph: the file it came from (for errors), its inputs/outputs, the K/V geometry. */
export interface RunnerSpec {
  file: string;
  io: DecoderIo;
  geometry: KvGeometry;
}

/**
 * Owns one ONNX Runtime session and runs forwards over a K/V batch. Lives in a worker thread:
 * `InferenceSession.create` and `run` block the thread they run on (docs/design.md). A model's
 * graph is passed as bytes; its external data as bytes too, or mapped by ORT from the graph's own
 * folder (WeightBytes.externalFolder: listing checked every location lies inside it); the
 * runtime's own optimized-graph cache is built from a path (ORT maps its data file).
 */
export class ModelRunner {
  /** The K/V outputs fetched, per layer key then value: the delta outputs when the graph has them. */
  private readonly kvOutputs: string[];
  private readonly fetches: string[];
  /** 'new' when the graph has delta outputs: forwards return only the new columns. */
  readonly kvForm: ForwardKv['form'];
  private readonly feeds: ForwardFeeds;

  private constructor(
    private readonly session: ort.InferenceSession,
    readonly spec: RunnerSpec,
  ) {
    const presents = kvNamesOf(spec.geometry.numLayers, presentName);
    const hasDeltas = presents.every((name) => session.outputNames.includes(deltaNameOf(name)));
    this.kvForm = hasDeltas ? 'new' : 'present';
    // The delta outputs gather each row's new columns at the columns this input names (GroupQueryAttention).
    const hasNewColumnIndex = session.inputNames.includes(NEW_COLUMN_INDEX);
    this.feeds = new ForwardFeeds(spec.io, spec.geometry.numLayers, hasNewColumnIndex);
    this.kvOutputs = hasDeltas ? presents.map(deltaNameOf) : presents;
    this.fetches = [GRAPH_IO.logits, ...this.kvOutputs];
  }

  /** The K/V geometry the runner's batches use. */
  get geometry(): KvGeometry {
    return this.spec.geometry;
  }

  /**
   * Builds the session from weight bytes or a cached graph's path and checks its inputs/outputs
   * against the spec (listing checked them once already).
   */
  static async build(
    source: WeightBytes | string,
    spec: RunnerSpec,
    options: RunnerOptions,
  ): Promise<ModelRunner> {
    const provider = options.provider ?? 'cpu';
    const sessionOptions = sessionOptionsOf(options);
    const session = await createSession(source, spec, sessionOptions).catch((error: Error) => {
      throw new Error(
        `${spec.file}: ONNX Runtime cannot build a session from it${provider === 'cpu' ? '' : ` on ${provider}`} (${error.message})`,
      );
    });
    // A graph given KEEP_INPUT here (or saved with it in the graph cache) is fed it from now on.
    const hasAddedKeep = !spec.io.logitsToKeepInput && session.inputNames.includes(KEEP_INPUT);
    const fedSpec: RunnerSpec = hasAddedKeep
      ? { ...spec, io: { ...spec.io, logitsToKeepInput: KEEP_INPUT } }
      : spec;
    const problem = graphProblem(session, fedSpec);
    if (problem) {
      await session.release();
      throw new Error(problem);
    }
    return new ModelRunner(session, fedSpec);
  }

  /** Runs `numNew` tokens per row (row-major ids) on top of the batch's past. */
  async forward(
    batch: KvBatch,
    inputIds: BigInt64Array,
    numNew: number,
    wanted: LogitsWanted = 'last',
  ): Promise<ForwardResult> {
    const { io } = this.spec;
    // Only what is read: onnxruntime-node copies every fetched output into a fresh buffer.
    const feeds = this.feeds.of(batch, inputIds, numNew, wanted);
    const outputs = await this.session.run(feeds, this.fetches);
    const logits = outputs[GRAPH_IO.logits]!;
    const tensors = this.kvOutputs.map((name) => outputs[name]!.data as KvArray);
    const data =
      io.logitsDtype === 'float16'
        ? halfArrayToFloat32(logits.data as Uint16Array)
        : (logits.data as Float32Array);
    return {
      logits: data,
      vocabSize: logits.dims[logits.dims.length - 1]!,
      numPositions: logits.dims[1]!,
      kv: { form: this.kvForm, tensors },
    };
  }

  /** Ends profiling (a runner built with `profileFilePrefix`): ONNX Runtime writes the profile file. */
  endProfiling(): void {
    this.session.endProfiling();
  }

  /** Frees the session's memory; the runner is unusable afterwards. */
  async release(): Promise<void> {
    await this.session.release();
  }
}

/**
 * A session from a cached graph's path, or from weight bytes: the graph gets the slot's rewrites
 * first (rewrite-for-slot.ts), and is built as it came if they cannot apply or ORT refuses them.
 */
async function createSession(
  source: WeightBytes | string,
  spec: RunnerSpec,
  options: ort.InferenceSession.SessionOptions,
): Promise<ort.InferenceSession> {
  if (typeof source === 'string') return ort.InferenceSession.create(source, options);
  const original = source.externalFolder
    ? withExternalFolder(options, source.externalFolder)
    : { ...options, externalData: source.externalData };
  let rewritten: SlotRewrite | null = null;
  try {
    rewritten = rewriteForSlot(source.bytes, spec.io.logitsToKeepInput !== null);
  } catch (error) {
    console.warn(
      `${spec.file}: left as it came (its graph could not be read for rewriting): ${(error as Error).message}`,
    );
  }
  // Each form ORT refuses falls back to the next: both rewrites, logits-to-keep alone, as it came.
  for (const bytes of [rewritten?.bytes, rewritten?.keepOnlyBytes]) {
    if (!bytes) continue;
    try {
      return await ort.InferenceSession.create(bytes, original);
    } catch (error) {
      console.warn(`${spec.file}: a rewritten form of its graph did not build: ${(error as Error).message}`);
    }
  }
  return ort.InferenceSession.create(source.bytes, original);
}

/** `options` with ORT told to read (map) the graph's external data files from `folder`. */
function withExternalFolder(
  options: ort.InferenceSession.SessionOptions,
  folder: string,
): ort.InferenceSession.SessionOptions {
  const extra = (options.extra ?? {}) as { session?: Record<string, unknown> };
  const session = { ...extra.session, model_external_initializers_file_folder_path: folder };
  return { ...options, extra: { ...extra, session } };
}

/** Why a session does not have the inputs/outputs the spec feeds and reads, or null when it does. */
export function graphProblem(
  session: Pick<ort.InferenceSession, 'inputNames' | 'outputNames'>,
  spec: RunnerSpec,
): string | null {
  const { io, geometry, file } = spec;
  const missing = missingIoOf(session.inputNames, session.outputNames, fedInputsOf(io), geometry.numLayers);
  return missing && `${file}: ${missing}`;
}

/** The logits of row `row`'s last position, as a view (no copy). */
export function lastLogits(result: ForwardResult, row: number): Float32Array {
  return logitsAt(result, row, result.numPositions - 1);
}

/** The logits of row `row`, kept position `position` (0 … numPositions − 1), as a view. */
export function logitsAt(result: ForwardResult, row: number, position: number): Float32Array {
  if (position < 0 || position >= result.numPositions)
    throw new Error(`position ${position} is not among the ${result.numPositions} kept`);
  const start = (row * result.numPositions + position) * result.vocabSize;
  return result.logits.subarray(start, start + result.vocabSize);
}

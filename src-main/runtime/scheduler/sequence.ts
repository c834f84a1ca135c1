import type { TimelineRecorder } from '../../telemetry/timeline/recorder';
import type { SamplerSpec } from '../sampling/sampler';
import { IncrementalDetokenizer } from '../tokenize/detokenizer';
import { StopMatcher } from '../sampling/stop-matcher';
import type { Slot } from '../slots/slot';
import type { GenerationRequest, GenerationSink } from './request';

/** Where a sequence is in the scheduler: waiting for a seat, prefilling, decoding, or done. */
export type SequenceStatus = 'waiting' | 'prefilling' | 'decoding' | 'finished';

/**
 * Every status change a sequence may make; anything else is a bug and throws. Only the
 * scheduler moves a sequence (`moveSequence`, not exported from the room).
 */
export const SEQUENCE_TRANSITIONS: Readonly<Record<SequenceStatus, readonly SequenceStatus[]>> = {
  // Seated; or ended while queued (cancelled, deadline, its slot failed, refused).
  waiting: ['prefilling', 'finished'],
  // Its last chunk sampled the first token; preempted (recomputed later); or ended.
  prefilling: ['decoding', 'waiting', 'finished'],
  decoding: ['waiting', 'finished'],
  // A life ends once.
  finished: [],
};

const STATUS = Symbol('status');

/** Moves `seq` along a SEQUENCE_TRANSITIONS edge; throws on any other change. */
export function moveSequence(seq: Sequence, to: SequenceStatus): void {
  if (!SEQUENCE_TRANSITIONS[seq.status].includes(to))
    throw new Error(`sequence ${seq.seqId}: ${seq.status} → ${to} is not a sequence transition`);
  seq[STATUS] = to;
}

/**
 * One request inside the engine (nano-vllm's Sequence): its tokens, its progress and its
 * timeline recorder. Its status, seat and held pages belong to the scheduler, which alone
 * changes them; everyone else reads.
 */
export class Sequence {
  [STATUS]: SequenceStatus = 'waiting';
  readonly outputIds: number[] = [];
  /** Tokens whose K/V exist in the slot's executor. */
  numComputed = 0;
  /** Tokens covered by cached pages at the latest admission. */
  numCachedTokens = 0;
  /** Tokens the current admission must prefill: prompt, plus output after a preemption. */
  prefillIds: number[];
  /** The queue position last told to the sink, so it hears only changes. */
  lastQueuePosition: number | null = null;
  hasStartedPrefill = false;
  /** Decode steps its slot's job in flight runs for it back to back (a burst; 1 otherwise). */
  numDecodeSteps = 1;
  admittedOrder = 0;
  text = '';
  /** A stop string ended the text: what followed it must never be flushed. */
  hasHitStopString = false;
  readonly detokenizer: IncrementalDetokenizer;
  readonly stopMatcher: StopMatcher;

  constructor(
    readonly request: GenerationRequest,
    readonly sink: GenerationSink,
    readonly recorder: TimelineRecorder,
    readonly slot: Slot,
    readonly promptIds: number[],
    /** Sampling settings and the RNG state after the last token (the worker samples; this follows it). */
    readonly sampler: SamplerSpec,
    readonly maxTokens: number,
  ) {
    this.prefillIds = promptIds;
    this.detokenizer = new IncrementalDetokenizer(slot.model.folder.tokenizer);
    this.stopMatcher = new StopMatcher(request.stop ?? []);
  }

  /** Where the sequence is (SEQUENCE_TRANSITIONS); changed only by the scheduler. */
  get status(): SequenceStatus {
    return this[STATUS];
  }

  get seqId(): string {
    return this.request.requestId;
  }

  /** Prompt plus every token generated so far: what a recompute must prefill. */
  get allIds(): number[] {
    return [...this.promptIds, ...this.outputIds];
  }

  /** True while the sequence holds a seat (admitted, neither finished nor preempted). */
  get isSeated(): boolean {
    return this.status === 'prefilling' || this.status === 'decoding';
  }

  /** Tokens the K/V will hold after the next forward (for budget checks). */
  get numTokensAfterStep(): number {
    // A decoding sequence runs its job's steps, then one step ahead in its worker.
    return this.status === 'prefilling'
      ? this.prefillIds.length + 1
      : this.numComputed + this.numDecodeSteps + 1;
  }

  /** Tokens it may still produce: its answer's limit, and the model's positions. */
  get numTokensLeft(): number {
    const numPositionsLeft = this.slot.model.folder.shape.maxPositions - this.promptIds.length;
    return Math.min(this.maxTokens, numPositionsLeft) - this.outputIds.length;
  }
}

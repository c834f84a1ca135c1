import type { TimelineRecorder } from '../../telemetry/timeline';
import type { CachedPage } from '../pages';
import type { SamplerSpec } from '../sampling/sampler';
import { IncrementalDetokenizer, StopMatcher } from '../sampling';
import type { Slot } from '../slots';
import type { GenerationRequest, GenerationSink } from './request';

/** Where a sequence is in the scheduler: waiting for a seat, prefilling, decoding, or done. */
export type SequenceStatus = 'waiting' | 'prefilling' | 'decoding' | 'finished';

/**
 * One request inside the engine (nano-vllm's Sequence): its tokens, its place in the
 * scheduler, the pages it holds and its timeline recorder. Owned by the engine loop.
 */
export class Sequence {
  status: SequenceStatus = 'waiting';
  readonly outputIds: number[] = [];
  /** Tokens whose K/V exist in the slot's executor. */
  numComputed = 0;
  /** Tokens covered by cached pages at the latest admission. */
  numCachedTokens = 0;
  /** Pages this sequence holds, page i at index i (cached at admission, then its own as they complete). */
  heldPages: CachedPage[] = [];
  /** Tokens the current admission must prefill: prompt, plus output after a preemption. */
  prefillIds: number[];
  /** The queue position last told to the sink, so it hears only changes. */
  lastQueuePosition: number | null = null;
  hasStartedPrefill = false;
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
    readonly deadlineAt: number | null,
  ) {
    this.prefillIds = promptIds;
    this.detokenizer = new IncrementalDetokenizer(slot.model.folder.tokenizer);
    this.stopMatcher = new StopMatcher(request.stop ?? []);
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
    // A decoding sequence may run one step ahead in its worker: room for two more tokens.
    return this.status === 'prefilling' ? this.prefillIds.length + 1 : this.numComputed + 2;
  }
}

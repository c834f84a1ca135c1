import type { ManualClock } from '../../src-main/telemetry/clock';
import type {
  DecodeOutcome,
  LoadedReply,
  LoadJob,
  PrefillOutcome,
  StepJob,
  SteppedReply,
} from '../../src-main/runtime/engine/protocol';
import type { SlotRunner } from '../../src-main/runtime/slots';

/** How long each piece of a scripted worker's work takes on the test's clock (ms). */
export interface RunnerTimes {
  loadMs: number;
  /** Between taking a job and starting its chunk (page copies, drops): in no part. */
  copyMs: number;
  /** Assembling a sequence's cached past before its first chunk. */
  lookupMs: number;
  /** One prefill chunk's forward. */
  prefillMs: number;
  /** After the logits: sampling and the reply's way back to the main thread. */
  replyMs: number;
  /** One batched decode forward. */
  decodeMs: number;
}

/** The token every sequence samples (never an end-of-turn token: lengths come from maxTokens). */
export const SCRIPTED_TOKEN_ID = 42;

/**
 * A slot runner for unit tests of the scheduler and engine loop (the `createRunner` option):
 * no worker and no ONNX Runtime; each job moves a ManualClock by scripted amounts and answers
 * with stamps taken from it, so every timeline part has an exact expected value.
 */
export class ScriptedRunner implements SlotRunner {
  isBusy = false;
  readonly jobs: StepJob[] = [];
  isClosed = false;
  /** Set to make close() fail (a worker that will not shut down). */
  closeError: Error | null = null;

  constructor(
    private readonly clock: ManualClock,
    private readonly times: RunnerTimes,
  ) {}

  async load(_job: LoadJob): Promise<LoadedReply> {
    await Promise.resolve();
    this.clock.advance(this.times.loadMs);
    const host = {
      hostBytes: 0,
      isPinned: false,
      pinnedReason: 'scripted',
      lockedBytes: 0,
      residentPct: null,
    };
    return {
      type: 'loaded',
      host,
      provider: { requested: 'cpu', used: 'cpu', unavailableReason: null },
      graphCache: { status: 'off', reason: 'scripted' },
      readMs: 0,
      buildMs: this.times.loadMs,
      warmupMs: 0,
    };
  }

  async step(job: StepJob): Promise<SteppedReply> {
    if (this.isBusy) throw new Error('scripted runner: one job at a time');
    this.isBusy = true;
    this.jobs.push(job);
    await Promise.resolve();
    const pickedUpAt = this.clock.now();
    this.clock.advance(this.times.copyMs);
    const prefill = job.prefill ? this.prefill(job.prefill, pickedUpAt) : null;
    const decode = job.decode ? this.decode(job.decode.rows.map((r) => r.seqId)) : null;
    this.clock.advance(this.times.replyMs);
    this.isBusy = false;
    return { type: 'stepped', prefill, decode };
  }

  async close(): Promise<void> {
    this.isClosed = true;
    if (this.closeError) throw this.closeError;
  }

  private prefill(work: NonNullable<StepJob['prefill']>, pickedUpAt: number): PrefillOutcome {
    const startedAt = this.clock.now();
    if (work.cachedPages !== null) this.clock.advance(this.times.lookupMs);
    const contextReadyAt = this.clock.now();
    this.clock.advance(this.times.prefillMs);
    const logitsAt = this.clock.now();
    const sampled = work.isLastChunk ? { tokenId: SCRIPTED_TOKEN_ID, rngState: 1 } : null;
    const pastSource = work.cachedPages === null ? null : work.cachedPages.length > 0 ? 'pages' : 'none';
    return {
      seqId: work.seqId,
      pastSource,
      pickedUpAt,
      startedAt,
      contextReadyAt,
      logitsAt,
      sampled,
      pages: [],
    };
  }

  private decode(rows: string[]): DecodeOutcome {
    const startedAt = this.clock.now();
    this.clock.advance(this.times.decodeMs);
    const logitsAt = this.clock.now();
    return {
      startedAt,
      logitsAt,
      rows: rows.map((seqId) => ({ seqId, tokenId: SCRIPTED_TOKEN_ID, rngState: 1 })),
      pages: [],
    };
  }
}

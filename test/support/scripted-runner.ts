import type { ManualClock } from '../../src-main/telemetry/clock';
import type {
  CapturedPage,
  DecodeOutcome,
  DecodeWork,
  LoadedReply,
  LoadJob,
  PrefillOutcome,
  SampledToken,
  StepJob,
  SteppedReply,
} from '../../src-main/runtime/slot-worker/protocol';
import type { SlotRunner } from '../../src-main/runtime/slots/slot';
import { endsBurst } from '../../src-main/runtime/slot-worker/step-executor';

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

/** Where a held step stops: copying pages before its chunk, inside the prefill forward, inside the decode forward. */
export type StepPhase = 'copy' | 'prefill' | 'decode';

/** How a scripted worker captures pages: tokens per page and bytes per page (the model's, for budget arithmetic). */
export interface ScriptedPages {
  pageSize: number;
  pageBytes: number;
}

/**
 * A slot runner for unit tests of the scheduler and engine loop (the `createRunner` option):
 * no worker and no ONNX Runtime; each job moves a ManualClock by scripted amounts and answers
 * with stamps taken from it, so every timeline part has an exact expected value. A test can
 * hold a step at one phase (a long forward: nothing else wakes the loop meanwhile) and let it
 * go, or make the worker die there (`die`), as a real one dies on an uncaught error.
 */
export class ScriptedRunner implements SlotRunner {
  isBusy = false;
  readonly jobs: StepJob[] = [];
  isClosed = false;
  /** Set to make close() fail (a worker that will not shut down). */
  closeError: Error | null = null;
  /** Pages completed so far per sequence (its K/V's tokens), for page capture. */
  private readonly numKvTokens = new Map<string, number>();
  private readonly nextCapture = new Map<string, number>();
  private readonly exitListeners: ((reason: string) => void)[] = [];
  private holdAt: { phase: StepPhase; when: (job: StepJob) => boolean } | null = null;
  private held: { phase: StepPhase; resume: () => void; fail: (error: Error) => void } | null = null;
  private heldWaiters: (() => void)[] = [];
  private exitReason: string | null = null;
  private isBurstCut = false;
  /** How many decode steps each job ran (a burst's, or one), in job order; 0 for a job without decode. */
  readonly numStepsRun: number[] = [];
  /** Wake notices heard while idle (a request arrived for this runner's slot). */
  numWakes = 0;

  constructor(
    private readonly clock: ManualClock,
    private readonly times: RunnerTimes,
    /** How pages are captured when the main thread asks (null: never; the main thread never reads a page's bytes). */
    private readonly pages: ScriptedPages | null = null,
  ) {}

  /**
   * Set to make the forward's scores NaN from a sequence's n-th sampled token on (0: its first),
   * as broken weights do; null: always sound.
   */
  nanScoresFrom: number | null = null;
  private readonly numSampled = new Map<string, number>();

  /** The token a sequence samples next: SCRIPTED_TOKEN_ID, or none when its scores are broken. */
  private sampledFor(seqId: string): SampledToken {
    const n = this.numSampled.get(seqId) ?? 0;
    this.numSampled.set(seqId, n + 1);
    const isBroken = this.nanScoresFrom !== null && n >= this.nanScoresFrom;
    return isBroken
      ? { tokenId: 0, rngState: 1, brokenScores: 'nan' }
      : { tokenId: SCRIPTED_TOKEN_ID, rngState: 1 };
  }

  /** Set to make load() fail with it (as a worker's session creation or warm-up throws). */
  loadError: Error | null = null;

  /** Every load job this runner was given, in order. */
  readonly loadJobs: LoadJob[] = [];

  async load(job: LoadJob): Promise<LoadedReply> {
    this.loadJobs.push(job);
    await Promise.resolve();
    if (this.loadError) throw this.loadError;
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
      stepNodes: { count: null, reason: 'scripted' },
      fusion: { status: 'off', reason: 'scripted' },
      fuseMs: 0,
      io: job.io,
      runPath: { path: 'ort-node', reason: 'scripted' },
    };
  }

  async step(job: StepJob): Promise<SteppedReply> {
    if (this.exitReason !== null) throw new Error('slot worker is closed');
    if (this.isBusy) throw new Error('scripted runner: one job at a time');
    this.isBusy = true;
    this.isBurstCut = false;
    this.jobs.push(job);
    try {
      await Promise.resolve();
      const pickedUpAt = this.clock.now();
      for (const seqId of job.drop) this.forget(seqId);
      await this.phase('copy', job);
      this.clock.advance(this.times.copyMs);
      const prefill = job.prefill ? await this.prefill(job, job.prefill, pickedUpAt) : null;
      const [decode = null, ...laterDecodes] = job.decode ? await this.burst(job, job.decode) : [];
      this.numStepsRun.push(decode ? 1 + laterDecodes.length : 0);
      this.clock.advance(this.times.replyMs);
      return { type: 'stepped', prefill, decode, ...(laterDecodes.length > 0 ? { laterDecodes } : {}) };
    } finally {
      this.isBusy = false;
    }
  }

  /** As a worker does: the job in flight's burst ends after its current step. */
  cutBurst(): void {
    if (this.isBusy) this.isBurstCut = true;
  }

  /** As RunnerClient does: an idle runner is told a job is on its way (counted, nothing else). */
  wake(): void {
    if (!this.isBusy) this.numWakes += 1;
  }

  async close(): Promise<void> {
    this.isClosed = true;
    if (this.closeError) throw this.closeError;
  }

  onExit(listener: (reason: string) => void): void {
    this.exitListeners.push(listener);
  }

  /** The next step that reaches `phase` (and whose job passes `when`) stops there until `resume()` or `die()`. */
  holdNextStepAt(phase: StepPhase, when: (job: StepJob) => boolean = () => true): void {
    this.holdAt = { phase, when };
  }

  /** Resolves once a step is held at its phase. */
  whenHeld(): Promise<void> {
    if (this.held) return Promise.resolve();
    return new Promise((resolve) => this.heldWaiters.push(resolve));
  }

  /** Lets a held step go on. */
  resume(): void {
    const held = this.held;
    this.held = null;
    held?.resume();
  }

  /** The held step fails with `error` (as ONNX Runtime throws inside a forward); the worker lives on. */
  failHeld(error: Error): void {
    const held = this.held;
    this.held = null;
    held?.fail(error);
  }

  /**
   * The worker dies on its own, as RunnerClient reports it: the job in flight fails with the
   * reason, then every exit listener hears it (once; never after close).
   */
  die(reason = 'the slot worker failed: scripted crash'): void {
    if (this.exitReason !== null || this.isClosed) return;
    this.exitReason = reason;
    const held = this.held;
    this.held = null;
    held?.fail(new Error(reason));
    for (const listener of this.exitListeners) listener(reason);
  }

  private async phase(phase: StepPhase, job: StepJob): Promise<void> {
    if (this.holdAt?.phase !== phase || !this.holdAt.when(job)) return;
    this.holdAt = null;
    await new Promise<void>((resume, fail) => {
      this.held = { phase, resume, fail };
      for (const waiter of this.heldWaiters.splice(0)) waiter();
    });
  }

  private async prefill(
    job: StepJob,
    work: NonNullable<StepJob['prefill']>,
    pickedUpAt: number,
  ): Promise<PrefillOutcome> {
    const startedAt = this.clock.now();
    if (work.cachedPages !== null) {
      this.clock.advance(this.times.lookupMs);
      this.numKvTokens.set(work.seqId, work.cachedPages.length * (this.pages?.pageSize ?? 0));
      if (work.captureFromPage !== null) this.nextCapture.set(work.seqId, work.captureFromPage);
    }
    const contextReadyAt = this.clock.now();
    await this.phase('prefill', job);
    this.clock.advance(this.times.prefillMs);
    const logitsAt = this.clock.now();
    this.grow(work.seqId, work.tokenIds.length);
    const sampled = work.isLastChunk ? this.sampledFor(work.seqId) : null;
    const pastSource = work.cachedPages === null ? null : work.cachedPages.length > 0 ? 'pages' : 'none';
    return {
      seqId: work.seqId,
      pastSource,
      pickedUpAt,
      startedAt,
      contextReadyAt,
      logitsAt,
      sampled,
      pages: this.capture(work.seqId),
    };
  }

  /** The job's decode steps back to back, as a worker runs a burst: `numSteps`, or fewer after an end token or broken scores. */
  private async burst(job: StepJob, work: DecodeWork): Promise<DecodeOutcome[]> {
    const rows = work.rows.map((r) => r.seqId);
    const outcomes = [await this.decode(job, rows)];
    while (
      outcomes.length < (work.numSteps ?? 1) &&
      !this.isBurstCut &&
      !endsBurst(outcomes[outcomes.length - 1]!, work)
    )
      outcomes.push(await this.decode(job, rows));
    return outcomes;
  }

  private async decode(job: StepJob, rows: string[]): Promise<DecodeOutcome> {
    const startedAt = this.clock.now();
    await this.phase('decode', job);
    this.clock.advance(this.times.decodeMs);
    const logitsAt = this.clock.now();
    // A decode step computes the K/V of each row's previous token.
    for (const seqId of rows) this.grow(seqId, 1);
    return {
      startedAt,
      logitsAt,
      rows: rows.map((seqId) => ({ seqId, ...this.sampledFor(seqId) })),
      pages: rows.flatMap((seqId) => this.capture(seqId)),
    };
  }

  private grow(seqId: string, numTokens: number): void {
    this.numKvTokens.set(seqId, (this.numKvTokens.get(seqId) ?? 0) + numTokens);
  }

  /** Every page of the sequence's K/V completed since the last capture (empty buffers, as a real worker posts them). */
  private capture(seqId: string): CapturedPage[] {
    const from = this.nextCapture.get(seqId);
    if (this.pages === null || from === undefined) return [];
    const { pageSize, pageBytes } = this.pages;
    const numFull = Math.floor((this.numKvTokens.get(seqId) ?? 0) / pageSize);
    const pages: CapturedPage[] = [];
    for (let pageIndex = from; pageIndex < numFull; pageIndex++) {
      const data = { buffer: new SharedArrayBuffer(pageBytes), byteOffset: 0, byteLength: pageBytes };
      pages.push({ seqId, pageIndex, data });
    }
    this.nextCapture.set(seqId, Math.max(from, numFull));
    return pages;
  }

  private forget(seqId: string): void {
    this.numKvTokens.delete(seqId);
    this.nextCapture.delete(seqId);
  }
}

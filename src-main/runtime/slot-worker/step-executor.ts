import { pageBytes } from '../model/kv-geometry';
import type { KvGeometry } from '../model/kv-geometry';
import type {
  DecodeOutcome,
  DecodeWork,
  PrefillOutcome,
  PrefillWork,
  RememberedSeat,
  StepJob,
  SteppedReply,
} from './protocol';
import type { KvGrant } from '../scheduler/kv-grant';
import { PageBuffers } from './page-buffers';
import { SeqSampler } from './seq-sampler';

/** Worker-side state of one seated sequence, the same on both run paths. */
export interface SeqState {
  sampler: SeqSampler;
  /** The token sampled last, the input of the sequence's next decode step. */
  pendingTokenId: number | null;
  nextCapturePage: number | null;
}

/**
 * What both run paths' slot executors share (SlotExecutor, BoundSlotExecutor): a step job's
 * order (settle the step run ahead, fill promised pages, drops, the prefill chunk, the decode),
 * running the next decode step ahead after a reply, and tidying pages once idle. A subclass
 * supplies the forwards over its own K/V.
 */
export abstract class StepExecutor {
  protected readonly seqs = new Map<string, SeqState>();
  protected continueRows: { rows: string[]; pageSize: number } | null = null;
  private ahead: Promise<DecodeOutcome> | null = null;
  /** Page copies promised in a reply, done when the next job arrives (see copyPendingPages). */
  protected pendingCopies: Array<() => void> = [];
  /** Buffers for the pages steps complete, allocated ahead while idle. */
  readonly pageBuffers = new PageBuffers();
  protected pageSize = 0;
  /** Step jobs begun, so an idle tidy queued before a job knows a job has begun since. */
  private numSteps = 0;
  /** The main thread asked the job in flight to end its burst (BurstCutNotice). */
  private isBurstCut = false;

  constructor(protected readonly now: () => number) {}

  /** The K/V geometry the executor's pages are laid out in. */
  protected abstract get geometry(): KvGeometry;
  /** Runs one prefill chunk (the first seats its sequence) and samples after the last. */
  protected abstract prefillChunk(
    pageSize: number,
    work: PrefillWork,
    pickedUpAt: number,
  ): Promise<PrefillOutcome>;
  /** One batched decode forward over `rows`, each fed the token it sampled last. */
  protected abstract decodeOnce(pageSize: number, rows: string[]): Promise<DecodeOutcome>;
  /** Drops a sequence the scheduler let go (its past may be kept for a next turn). */
  protected abstract forget(seqId: string): void;
  /** Bytes of the executor's one K/V buffer, when it has one (SteppedReply.kvBytes). */
  protected abstract kvBytes(): number | undefined;
  /** Assembles a remembered conversation's pages into a retained past (see RememberedSeat). */
  protected abstract seatRemembered(seat: RememberedSeat, pageSize: number): void;

  /**
   * Whether a forward holds this thread until it ends (the bound path's 'caller' runs): then no
   * message is read during a step, so a reply is posted before the step run ahead (postStepped)
   * and a burst looks for a cut between its steps.
   */
  get isRunOnThisThread(): boolean {
    return false;
  }

  /** Lays the executor's one K/V buffer out to the scheduler's grant (only the bound path has one). */
  protected applyGrant(_grant: KvGrant): void {}

  /** Seats a sequence's state from its first prefill chunk, which alone carries its sampler. */
  protected seatState(work: PrefillWork): void {
    if (!work.sampler) throw new Error(`first chunk of ${work.seqId} came without its sampler`);
    this.seqs.set(work.seqId, {
      sampler: new SeqSampler(work.sampler),
      pendingTokenId: null,
      nextCapturePage: work.captureFromPage,
    });
  }

  /** A seated sequence's state; throws for a sequence the slot never seated (a protocol bug). */
  protected stateOf(seqId: string): SeqState {
    const state = this.seqs.get(seqId);
    if (!state) throw new Error(`sequence ${seqId} is unknown to this slot`);
    return state;
  }

  /** The token a sequence's next decode step feeds; throws when it has none yet. */
  protected pendingTokenOf(seqId: string): number {
    const tokenId = this.stateOf(seqId).pendingTokenId;
    if (tokenId === null) throw new Error(`sequence ${seqId} has no token to decode`);
    return tokenId;
  }

  /** Runs one step job and reports stamps, sampled tokens and completed pages. */
  async step(job: StepJob): Promise<SteppedReply> {
    this.numSteps += 1;
    this.isBurstCut = false;
    const ahead = await this.settle();
    const pickedUpAt = this.now();
    this.copyPendingPages();
    this.pageSize = job.pageSize;
    for (const seqId of job.drop) this.forget(seqId);
    if (job.seat) this.seatRemembered(job.seat, job.pageSize);
    if (job.kvGrant) this.applyGrant(job.kvGrant);
    const prefill = job.prefill ? await this.prefillChunk(job.pageSize, job.prefill, pickedUpAt) : null;
    const rows = job.decode?.rows.map((row) => row.seqId) ?? [];
    const [decode = null, ...laterDecodes] =
      rows.length > 0 ? await this.decode(job.pageSize, job.decode!, rows, ahead) : [];
    if (rows.length === 0) this.continueRows = null;
    const kvBytes = this.kvBytes();
    return {
      type: 'stepped',
      prefill,
      decode,
      ...(laterDecodes.length > 0 ? { laterDecodes } : {}),
      ...(kvBytes === undefined ? {} : { kvBytes }),
    };
  }

  /** Ends the job in flight's decode burst after its current step (someone waits for the slot). */
  cutBurst(): void {
    this.isBurstCut = true;
  }

  /** Starts the next decode step of the last job's rows, if it allowed that. Call once the reply is built (before posting it). */
  runAhead(): void {
    if (!this.continueRows || this.ahead) return;
    const { rows, pageSize } = this.continueRows;
    this.continueRows = null;
    this.ahead = this.decodeOnce(pageSize, rows);
    // Not lost: the next step awaits `ahead` (settle) and its job fails with this error.
    this.ahead.catch(() => undefined);
  }

  /**
   * After a decode or drop reply that ran nothing ahead (the rows finished or wait for the
   * scheduler): once the reply is on its way, fills the announced pages and allocates spare
   * page buffers, so the next request waits for neither. Not after a first token (the main
   * thread is flushing it) and not once a job has begun (it copied what it reads itself).
   */
  tidyWhenIdle(reply: SteppedReply): void {
    if (this.ahead || reply.prefill) return;
    const numSteps = this.numSteps;
    setImmediate(() => {
      if (this.ahead || this.numSteps !== numSteps) return;
      try {
        this.copyPendingPages();
        if (this.pageSize > 0) this.pageBuffers.refill(pageBytes(this.geometry, this.pageSize));
      } catch (error) {
        // The next job's own copy (step) reports a page that cannot be filled.
        console.warn(`slot worker: idle page copy failed: ${(error as Error).message}`);
      }
    });
  }

  /** Waits for a step run ahead, if any, and hands over its outcome. */
  async settle(): Promise<DecodeOutcome | null> {
    const ahead = this.ahead;
    this.ahead = null;
    return ahead;
  }

  /**
   * Fills the pages the last reply announced. Their buffers went out empty so the token did not
   * wait for the copy; only this thread ever reads a page's contents (pages are keyed by this
   * slot's revision), and it fills them before it handles the next job.
   */
  private copyPendingPages(): void {
    const copies = this.pendingCopies;
    this.pendingCopies = [];
    for (const copy of copies) copy();
  }

  /** The job's decode steps, the one run ahead first: one, or a burst of `work.numSteps`. */
  private async decode(
    pageSize: number,
    work: DecodeWork,
    rows: string[],
    ahead: DecodeOutcome | null,
  ): Promise<DecodeOutcome[]> {
    this.continueRows = work.mayContinue ? { rows, pageSize } : null;
    // The step ahead already ran for the rows seated then; a row that joined since waits for the next.
    const outcomes = [
      ahead
        ? {
            ...ahead,
            rows: ahead.rows.filter((r) => rows.includes(r.seqId)),
            pages: ahead.pages.filter((p) => rows.includes(p.seqId)),
          }
        : await this.decodeOnce(pageSize, rows),
    ];
    const numSteps = work.numSteps ?? 1;
    while (outcomes.length < numSteps && !endsBurst(outcomes[outcomes.length - 1]!, work)) {
      // A forward on this thread let no message in: a cut notice waits for one turn of the loop.
      if (this.isRunOnThisThread) await new Promise((resolve) => setImmediate(resolve));
      if (this.isBurstCut) break;
      outcomes.push(await this.decodeOnce(pageSize, rows));
    }
    return outcomes;
  }
}

/** Whether a burst stops after this step: some row sampled an end token, or its scores were broken. */
export function endsBurst(outcome: DecodeOutcome, work: DecodeWork): boolean {
  const endTokenIds = work.endTokenIds ?? [];
  return outcome.rows.some((row) => row.brokenScores !== undefined || endTokenIds.includes(row.tokenId));
}

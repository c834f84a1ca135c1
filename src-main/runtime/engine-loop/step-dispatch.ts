import type { Clock } from '../../telemetry/clock';
import type { FinishReason } from '../../telemetry/timeline/schema';
import type {
  CapturedPage,
  DecodeOutcome,
  DecodeWork,
  PrefillOutcome,
  SampledToken,
  StepJob,
  SteppedReply,
} from '../slot-worker/protocol';
import type { RamPages } from '../pages/ram-pages';
import { SAMPLING_LIMITS } from '../sampling/limits';
import { arePenaltiesNeutral } from '../sampling/penalties';
import type { SamplerStart } from '../sampling/sampler';
import type { Slot } from '../slots/slot';
import type { Scheduler } from '../scheduler/scheduler';
import type { Sequence } from '../scheduler/sequence';
import type { EndedInPlan, StepPlan } from '../scheduler/step-plan';
import type { RetainedPastIndex } from './retained-past-index';
import type { PendingSeat } from './remembered-seats';
import { emitToken } from './token-output';
import { describeBrokenScores } from '../sampling/broken-scores';

/** What the dispatcher needs from the engine loop. */
export interface DispatchHost {
  clock: Clock;
  scheduler: Scheduler;
  ramPages: RamPages | null;
  pageSize: number;
  finish(seq: Sequence, reason: FinishReason, errorMessage?: string | null): void;
  /** Tells the sink of a sequence the scheduler ended while planning. */
  endedInPlan(ended: EndedInPlan): void;
  takeDrops(slot: Slot): string[];
  /** Frees a sequence's K/V in another slot's worker with that slot's next job. */
  dropLater(slot: Slot, seqId: string): void;
  retained: RetainedPastIndex;
  /** The remembered conversation waiting to be seated in this slot's worker (RememberedSeats). */
  takeSeat(slot: Slot): PendingSeat | null;
}

/**
 * Turns a slot's step plan into a worker job, stamping the timeline transitions that happen
 * on the main thread (activation, context lookup, preemption), and reports the reply to the
 * scheduler: worker stamps, computed tokens, completed pages and sampled tokens.
 */
export class StepDispatcher {
  /** First prefill chunks whose past the worker took from a retained one. */
  numRetainedPastHits = 0;

  constructor(private readonly host: DispatchHost) {}

  /** Builds the job for a plan, or null when the slot has nothing to do. */
  buildJob(slot: Slot, plan: StepPlan): StepJob | null {
    const { clock } = this.host;
    for (const seq of plan.admitted) {
      seq.recorder.enter('activation', clock.now());
      if (!seq.recorder.hasFirstToken) seq.recorder.note({ numCachedTokens: seq.numCachedTokens });
    }
    for (const seq of plan.preempted) {
      seq.recorder.preempt(clock.now());
      // Another (idle) slot's victim: its worker forgets the K/V in that slot's next job.
      if (seq.slot !== slot) this.host.dropLater(seq.slot, seq.seqId);
    }
    for (const ended of plan.ended) this.host.endedInPlan(ended);
    const ownVictims = plan.preempted.filter((seq) => seq.slot === slot).map((seq) => seq.seqId);
    const drops = [...this.host.takeDrops(slot), ...ownVictims];
    const prefill = plan.prefill ? this.prefillWork(plan.prefill) : null;
    const decode = this.decodeWork(slot, plan);
    // A remembered past is copied in a job that runs nothing else: no request waits for it.
    const seat = !prefill && !decode ? this.host.takeSeat(slot) : null;
    if (seat) this.host.retained.note(slot, seat.seat.seqId, seat.pageHashes);
    if (!prefill && !decode && drops.length === 0 && !seat) return null;
    return {
      type: 'step',
      pageSize: this.host.pageSize,
      prefill,
      decode,
      drop: drops,
      ...(seat ? { seat: seat.seat } : {}),
      ...(plan.kvGrant ? { kvGrant: plan.kvGrant } : {}),
    };
  }

  /** The plan's decode step or burst, or null when no row decodes. */
  private decodeWork(slot: Slot, plan: StepPlan): DecodeWork | null {
    if (plan.decodeRows.length === 0) return null;
    const numSteps = plan.numDecodeSteps;
    const rows = plan.decodeRows.map((seq) => ({ seqId: seq.seqId }));
    // Running a step ahead only pays when some row will still be going after this job.
    const mayContinue = plan.decodeRows.some((seq) => seq.outputIds.length + numSteps < seq.maxTokens);
    if (numSteps === 1) return { rows, mayContinue };
    const isEosAnEnd = plan.decodeRows.some((seq) => !seq.request.ignoreEos);
    return { rows, mayContinue, numSteps, endTokenIds: isEosAnEnd ? slot.model.folder.eosIds : [] };
  }

  /**
   * A reply of `slot`'s worker arrived: it filled every page it announced in earlier replies
   * (it copies them before each job), so those may now be written to disk.
   */
  workerReplied(slot: Slot): void {
    if (slot.pageIdentity) this.host.ramPages?.markFilled(slot.pageIdentity);
  }

  /** Applies a worker's reply to the sequences that are still alive. */
  applyReply(plan: StepPlan, reply: SteppedReply): void {
    const { scheduler } = this.host;
    const outcome = reply.prefill;
    const chunk = plan.prefill;
    if (outcome?.pastSource === 'retained') this.numRetainedPastHits += 1;
    if (outcome && chunk && scheduler.isLive(chunk.seq)) {
      const { seq } = chunk;
      if (chunk.isFirstChunk) this.stampFirstChunk(seq, outcome);
      scheduler.prefilled(chunk, outcome.sampled !== null);
      if (outcome.sampled) {
        seq.recorder.enter(seq.recorder.hasFirstToken ? 'decode' : 'emit', outcome.logitsAt);
        this.emit(seq, outcome.sampled, outcome.pages, outcome.logitsAt);
      } else scheduler.addCompletedPages(seq, outcome.pages);
    }
    for (const decode of decodesOf(reply)) this.applyDecode(plan, decode);
  }

  /** One decode step's tokens and pages, for the rows still alive (a burst's earlier token may have ended one). */
  private applyDecode(plan: StepPlan, decode: DecodeOutcome): void {
    const { scheduler } = this.host;
    for (const row of decode.rows) {
      const rowSeq = plan.decodeRows.find((s) => s.seqId === row.seqId);
      if (!rowSeq || !scheduler.isLive(rowSeq)) continue;
      scheduler.decoded(rowSeq);
      const pages = decode.pages.filter((p) => p.seqId === row.seqId);
      this.emit(rowSeq, row, pages, decode.logitsAt);
    }
  }

  /**
   * The worker's own stamps for a first chunk: activation ends when the worker took the job
   * (lock wait included), the lookup and the prefill are the worker's. Page copies and drops
   * between taking the job and starting the chunk belong to no part (unattributed).
   */
  private stampFirstChunk(seq: Sequence, outcome: PrefillOutcome): void {
    seq.recorder.leave('activation', outcome.pickedUpAt);
    seq.recorder.enter('contextLookup', outcome.startedAt);
    seq.recorder.enter('prefill', outcome.contextReadyAt);
  }

  private prefillWork(plan: NonNullable<StepPlan['prefill']>): StepJob['prefill'] {
    const { seq } = plan;
    const held = this.host.scheduler.heldPagesOf(seq);
    const isCapturing = this.host.ramPages !== null && seq.slot.pageIdentity !== null;
    return {
      seqId: seq.seqId,
      tokenIds: plan.tokenIds,
      cachedPages: plan.isFirstChunk ? held.map((page) => page.data) : null,
      isLastChunk: plan.isLastChunk,
      captureFromPage: isCapturing ? held.length : null,
      sampler: plan.isFirstChunk ? samplerStartOf(seq) : null,
      retainedFrom: plan.isFirstChunk ? this.host.retained.take(seq.slot, held) : null,
    };
  }

  /**
   * Flushes the token, then stores the pages the same step completed: hashing and storing them
   * is not on the token's way to the client. Both happen before a finish, which releases the
   * sequence's pages and notes its past for the next turn. Broken scores end the answer instead.
   */
  private emit(
    seq: Sequence,
    sampled: SampledToken,
    pages: readonly CapturedPage[],
    producedAt: number,
  ): void {
    // Nothing from a forward with broken scores is kept: no token, and no page of its K/V.
    if (sampled.brokenScores)
      return this.host.finish(seq, 'error', describeBrokenScores(sampled.brokenScores));
    const reason = emitToken(this.host.scheduler, seq, sampled, this.host.clock, producedAt);
    this.host.scheduler.addCompletedPages(seq, pages);
    if (reason) this.host.finish(seq, reason);
  }
}

/** A reply's decode steps in the order they ran (none, one, or a burst). */
export function decodesOf(reply: SteppedReply): DecodeOutcome[] {
  return reply.decode ? [reply.decode, ...(reply.laterDecodes ?? [])] : [];
}

/** A sequence's sampler as its worker starts it: the penalties' history only when one is set. */
function samplerStartOf(seq: Sequence): SamplerStart {
  const history = arePenaltiesNeutral(seq.sampler)
    ? { promptTailIds: [], outputIds: [] }
    : {
        promptTailIds: seq.promptIds.slice(-SAMPLING_LIMITS.repeatPenalty.numLastTokens),
        outputIds: [...seq.outputIds],
      };
  return { ...seq.sampler, history };
}

import type { Clock } from '../../telemetry/clock';
import type { FinishReason } from '../../telemetry/timeline';
import type { CapturedPage, PrefillOutcome, SampledToken, StepJob, SteppedReply } from '../engine/protocol';
import { CHAIN_ROOT } from '../pages';
import type { PageStore } from '../pages';
import type { Slot } from '../slots';
import type { Sequence, StepPlan } from '../scheduler';
import type { RetainedPastIndex } from './retained-pasts';
import { emitToken } from './token-output';

/** What the dispatcher needs from the engine loop. */
export interface DispatchHost {
  clock: Clock;
  store: PageStore | null;
  pageSize: number;
  isAlive(seq: Sequence): boolean;
  finish(seq: Sequence, reason: FinishReason, errorMessage?: string | null): void;
  takeDrops(slot: Slot): string[];
  /** Frees a sequence's K/V in another slot's worker with that slot's next job. */
  dropLater(slot: Slot, seqId: string): void;
  retained: RetainedPastIndex;
}

/**
 * Turns a slot's step plan into a worker job, stamping the timeline transitions that happen
 * on the main thread (activation, context lookup, preemption), and applies the reply: worker
 * stamps, completed pages and sampled tokens.
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
      if (!seq.recorder.hasFirstToken) seq.recorder.meta.numCachedTokens = seq.numCachedTokens;
    }
    for (const seq of plan.preempted) {
      seq.recorder.preempt(clock.now());
      // Another (idle) slot's victim: its worker forgets the K/V in that slot's next job.
      if (seq.slot !== slot) this.host.dropLater(seq.slot, seq.seqId);
    }
    for (const seq of plan.outOfMemory)
      this.host.finish(seq, 'length', 'the K/V budget cannot hold this sequence');
    const ownVictims = plan.preempted.filter((seq) => seq.slot === slot).map((seq) => seq.seqId);
    const drops = [...this.host.takeDrops(slot), ...ownVictims];
    const prefill = plan.prefill ? this.prefillWork(plan.prefill) : null;
    const rows = plan.decodeRows.map((seq) => ({ seqId: seq.seqId }));
    if (!prefill && rows.length === 0 && drops.length === 0) return null;
    return {
      type: 'step',
      pageSize: this.host.pageSize,
      prefill,
      // Running a step ahead only pays when some row will still be going after this one.
      decode:
        rows.length > 0
          ? { rows, mayContinue: plan.decodeRows.some((seq) => seq.outputIds.length + 1 < seq.maxTokens) }
          : null,
      drop: drops,
    };
  }

  /** Applies a worker's reply to the sequences that are still alive. */
  applyReply(plan: StepPlan, reply: SteppedReply): void {
    const outcome = reply.prefill;
    const seq = plan.prefill?.seq;
    if (outcome?.pastSource === 'retained') this.numRetainedPastHits += 1;
    if (outcome && seq && this.host.isAlive(seq)) {
      if (plan.prefill!.isFirstChunk) this.stampFirstChunk(seq, outcome);
      seq.numComputed =
        (plan.prefill!.isFirstChunk ? seq.numCachedTokens : seq.numComputed) + plan.prefill!.tokenIds.length;
      if (outcome.sampled) {
        seq.recorder.enter(seq.recorder.hasFirstToken ? 'decode' : 'emit', outcome.logitsAt);
        seq.status = 'decoding';
        this.emit(seq, outcome.sampled, outcome.pages);
      } else this.insertPages(seq, outcome.pages);
    }
    for (const row of reply.decode?.rows ?? []) {
      const rowSeq = plan.decodeRows.find((s) => s.seqId === row.seqId);
      if (!rowSeq || !this.host.isAlive(rowSeq)) continue;
      rowSeq.numComputed += 1;
      this.emit(
        rowSeq,
        row,
        (reply.decode?.pages ?? []).filter((p) => p.seqId === row.seqId),
      );
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
    if (plan.isFirstChunk) seq.hasStartedPrefill = true;
    const isCapturing = this.host.store !== null && seq.slot.pageIdentity !== null;
    return {
      seqId: seq.seqId,
      tokenIds: plan.tokenIds,
      cachedPages: plan.isFirstChunk ? seq.heldPages.map((page) => page.data) : null,
      isLastChunk: plan.isLastChunk,
      captureFromPage: isCapturing ? seq.heldPages.length : null,
      sampler: plan.isFirstChunk ? { ...seq.sampler } : null,
      retainedFrom: plan.isFirstChunk ? this.host.retained.take(seq) : null,
    };
  }

  /**
   * Flushes the token, then stores the pages the same step completed: hashing and storing them
   * is not on the token's way to the client. Both happen before a finish, which releases the
   * sequence's pages and notes its past for the next turn.
   */
  private emit(seq: Sequence, sampled: SampledToken, pages: readonly CapturedPage[]): void {
    const reason = emitToken(seq, sampled, this.host.clock);
    this.insertPages(seq, pages);
    if (reason) this.host.finish(seq, reason);
  }

  /** Stores pages the worker completed, in order, held by the sequence that wrote them. */
  private insertPages(seq: Sequence, pages: readonly CapturedPage[]): void {
    const { store, pageSize } = this.host;
    const identity = seq.slot.pageIdentity;
    if (!store || !identity || pages.length === 0) return;
    const allIds = seq.allIds;
    for (const captured of [...pages].sort((a, b) => a.pageIndex - b.pageIndex)) {
      if (captured.pageIndex !== seq.heldPages.length) continue;
      const tokenIds = allIds.slice(captured.pageIndex * pageSize, (captured.pageIndex + 1) * pageSize);
      if (tokenIds.length !== pageSize) continue;
      const parent = seq.heldPages[captured.pageIndex - 1]?.hash ?? CHAIN_ROOT;
      seq.heldPages.push(store.insertHeld(identity, captured.pageIndex, parent, tokenIds, captured.data));
    }
  }
}

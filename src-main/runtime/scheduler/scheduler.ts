/**
 * Concurrency discipline (why no request can run on another's slot): a sequence is bound to
 * one slot when it is routed and is only ever placed in step jobs of that slot; each slot has
 * one runner (one worker, one ONNX Runtime session) that accepts one job at a time; K/V
 * never leaves the slot except as context pages whose key includes the slot's model,
 * tokenizer, layout and slot revisions. So a step job only ever touches its own slot.
 *
 * This file is device-free and owns every piece of sequence state (nano-vllm's split): which
 * sequences are alive, their status (every change through SEQUENCE_TRANSITIONS), their seats
 * (SeatLedger), their held pages (PageLedger), the K/V budget, their output (tokens, text, RNG
 * state) and the queue position each last heard. It decides who gets a seat, which prompt chunk
 * runs next and who is preempted when the budget runs out; the engine loop carries the decisions
 * out and reports each step's outcome back here (a test checks no file outside this room writes
 * a sequence's fields).
 */
import type { KvGeometry } from '../model/kv-geometry';
import type { CachedPage, RamPages } from '../pages/ram-pages';
import { slotGeometryOf } from '../slots/slot-geometry';
import type { Slot } from '../slots/slot';
import { KvBudget } from './kv-budget';
import { hasKvBuffer } from './kv-grant';
import { PageLedger } from './page-ledger';
import type { CompletedPage } from './page-ledger';
import { explainMiss, lookupPrefix } from './prefix-lookup';
import { SeatLedger } from './seat-ledger';
import { SequenceQueues } from './sequence-queues';
import { appendToken, releaseHeldText } from './sequence-output';
import type { AppendedToken } from './sequence-output';
import type { SeatHolder } from './seat-ledger';
import { moveSequence } from './sequence';
import type { Sequence } from './sequence';
import { nextChunk, nextToPrefill } from './prefill-order';
import type { PrefillPlan } from './prefill-order';
import type { LeftSeat, SchedulerOptions, StepPlan } from './step-plan';

export type { PrefillPlan } from './prefill-order';
export type { AppendedToken } from './sequence-output';
export type { EndedInPlan, LeftSeat, SchedulerOptions, StepPlan } from './step-plan';

/**
 * The per-slot decisions (see the file's comment): the live sequences, queues of waiting ones,
 * seats, held pages, and each step's plan (admissions, one prefill chunk, decode rows, preemptions).
 */
export class Scheduler {
  /** Every live sequence (waiting or seated), and each slot's queue of waiting ones. */
  private readonly queues = new SequenceQueues();
  /** The running sequences: those holding a seat. */
  private readonly seats: SeatLedger;
  private readonly pages: PageLedger;
  readonly budget: KvBudget;
  /** Victims chosen while their slot's step was running: they leave at that slot's next plan. */
  private readonly wantedVictims = new Set<Sequence>();
  private admissionCounter = 0;

  constructor(
    private readonly options: SchedulerOptions,
    private readonly ramPages: RamPages | null,
    readonly pageSize: number,
    holder: SeatHolder,
  ) {
    this.seats = new SeatLedger(options, holder);
    this.pages = new PageLedger(ramPages, pageSize);
    this.budget = new KvBudget(options, ramPages, this.pages, pageSize);
  }

  /**
   * Why a prompt this long can never run in this K/V geometry under the budget, or null when it
   * can; `hasBuffer`: its slot runs the bound path (a K/V buffer row besides the pages).
   */
  neverFits(geometry: KvGeometry, numPromptTokens: number, hasBuffer = false): string | null {
    return this.budget.neverFits(geometry, numPromptTokens, hasBuffer);
  }

  /** Takes in a routed sequence: alive from now on, at the back of its slot's queue. */
  enqueue(seq: Sequence): void {
    if (seq.status !== 'waiting') throw new Error(`sequence ${seq.seqId} is ${seq.status}, not new`);
    this.queues.add(seq);
  }

  /** The live sequence of a request, or undefined (never submitted, or finished). */
  sequence(requestId: string): Sequence | undefined {
    return this.queues.get(requestId);
  }

  /** True until the sequence finishes. */
  isLive(seq: Sequence): boolean {
    return this.queues.isLive(seq);
  }

  /** Every live sequence, in the order they came in. */
  liveSequences(): Sequence[] {
    return this.queues.all();
  }

  /** Waiting sequences across all slots (for the queue limit). */
  get numWaiting(): number {
    return this.queues.numWaiting;
  }

  /** Running (seated) sequences across all slots. */
  get numRunning(): number {
    return this.seats.numSeated;
  }

  /** Sequences seated on the slot now (the slot view's count; the registry keeps none). */
  numSeatedOn(slot: Slot): number {
    return this.seats.seatedOn(slot).length;
  }

  /** The sequences ahead of `seq` in its slot's queue, next first. */
  waitingAhead(seq: Sequence): readonly Sequence[] {
    return this.queues.ahead(seq);
  }

  /** Requests ahead of `seq` in its slot's queue (0 = next). */
  positionOf(seq: Sequence): number {
    return this.queues.positionOf(seq);
  }

  /** The slot's running (seated) sequences, in admission order. */
  runningOn(slot: Slot): readonly Sequence[] {
    return this.seats.seatedOn(slot);
  }

  /** True while a request waits for the slot (queued) or for room another slot must give (a wanted victim). */
  hasWaiting(slot: Slot): boolean {
    return this.queues.queueOf(slot).length > 0 || this.wantedVictims.size > 0;
  }

  /** True while the slot has sequences seated or queued. */
  hasWork(slot: Slot): boolean {
    return this.runningOn(slot).length > 0 || this.queues.queueOf(slot).length > 0;
  }

  /** The pages `seq` holds, page i at index i. */
  heldPagesOf(seq: Sequence): readonly CachedPage[] {
    return this.pages.heldBy(seq);
  }

  /**
   * Ends a live sequence (finished, cancelled, past its deadline, failed): its seat and pages
   * go back and it moves to `finished`, once. Returns what it left behind, or null when it was
   * not alive (already finished: nothing happens).
   */
  finish(seq: Sequence): LeftSeat | null {
    if (!this.isLive(seq)) return null;
    const left = {
      hasKvInWorker: seq.isSeated && seq.hasStartedPrefill,
      pageHashes: this.pages.heldBy(seq).map((page) => page.hash),
    };
    this.queues.forget(seq);
    this.leave(seq, 'finished');
    moveSequence(seq, 'finished');
    return left;
  }

  /**
   * A slot's worker died: every live sequence bound to it finishes here, once; the caller tells
   * each its cause. Their K/V died with the worker (nothing left in it).
   */
  failSlot(slotId: string): Sequence[] {
    const bound = this.liveSequences().filter((seq) => seq.slot.slotId === slotId);
    for (const seq of bound) this.finish(seq);
    return bound;
  }

  /**
   * Plans the next step of an idle slot: admissions, one prefill chunk, the decode batch.
   * `isIdle` says which other slots have no step in flight: only their sequences may be
   * preempted to make room (a sequence inside a running step cannot leave it). `maxDecodeSteps`:
   * how many decode steps the job may run back to back (decode-burst.ts).
   */
  planStep(slot: Slot, isIdle: (other: Slot) => boolean = () => false, maxDecodeSteps = 1): StepPlan {
    const plan: StepPlan = {
      admitted: [],
      prefill: null,
      decodeRows: [],
      numDecodeSteps: 1,
      preempted: [],
      ended: [],
      kvGrant: null,
    };
    // The last job's burst is computed now (numComputed): room is asked for one step again.
    for (const seq of this.runningOn(slot)) seq.numDecodeSteps = 1;
    this.leaveAsAsked(slot, plan);
    this.admit(slot, plan);
    const canGrow = this.fitDecodeGrowth(slot, plan, isIdle);
    const prefilling = nextToPrefill(this.runningOn(slot));
    if (prefilling) {
      plan.prefill = nextChunk(prefilling, this.options.prefillChunkTokens);
      prefilling.hasStartedPrefill = true;
    }
    plan.decodeRows = canGrow ? this.runningOn(slot).filter((seq) => seq.status === 'decoding') : [];
    plan.numDecodeSteps = this.burstOf(slot, plan, maxDecodeSteps);
    plan.kvGrant = this.budget.slotGrantOf(slot, this.runningOn(slot));
    return plan;
  }

  /**
   * Decode steps the plan's job may run back to back, at most `maxSteps` (decode-burst.ts): only
   * when nobody waits for the slot (no prefill, admission, queue or preemption), never past a
   * row's last token, and only when the burst's K/V fits. It may evict unheld cached pages (a
   * full RAM tier would otherwise stop every burst): the rows grow into that room a few steps later anyway.
   */
  private burstOf(slot: Slot, plan: StepPlan, maxSteps: number): number {
    const isSlotWanted =
      plan.prefill !== null || plan.admitted.length + plan.preempted.length > 0 || this.hasWaiting(slot);
    if (maxSteps <= 1 || plan.decodeRows.length === 0 || isSlotWanted) return 1;
    const numSteps = Math.min(maxSteps, ...plan.decodeRows.map((seq) => seq.numTokensLeft));
    if (numSteps <= 1) return 1;
    for (const seq of plan.decodeRows) seq.numDecodeSteps = numSteps;
    if (this.budget.fitsAfterEvicting(this.allRunning())) return numSteps;
    for (const seq of plan.decodeRows) seq.numDecodeSteps = 1;
    return 1;
  }

  /** A prefill chunk ran: its tokens are computed, and a last chunk's token starts decoding. */
  prefilled(chunk: PrefillPlan, hasSampled: boolean): void {
    const { seq } = chunk;
    if (!this.isLive(seq)) return;
    seq.numComputed = (chunk.isFirstChunk ? seq.numCachedTokens : seq.numComputed) + chunk.tokenIds.length;
    if (hasSampled) moveSequence(seq, 'decoding');
  }

  /** A decode step ran for `seq`: one more token's K/V is computed. */
  decoded(seq: Sequence): void {
    if (this.isLive(seq)) seq.numComputed += 1;
  }

  /** A token the worker sampled for `seq` joins its output; says what text to show and why it stops. */
  appendToken(seq: Sequence, tokenId: number, rngState: number): AppendedToken {
    return appendToken(seq, tokenId, rngState);
  }

  /** The text `seq` held back for a possible stop string, now part of its answer (its life is ending). */
  releaseHeldText(seq: Sequence): string {
    return releaseHeldText(seq);
  }

  /**
   * The waiting sequences whose place in their queue changed since they were last told (0 = next),
   * each noted as told: a sink hears only changes, not every step.
   */
  queueMoves(): { seq: Sequence; position: number }[] {
    const moves: { seq: Sequence; position: number }[] = [];
    for (const seq of this.liveSequences()) {
      if (seq.status !== 'waiting') continue;
      const position = this.positionOf(seq);
      if (position === seq.lastQueuePosition) continue;
      seq.lastQueuePosition = position;
      moves.push({ seq, position });
    }
    return moves;
  }

  /** Stores the pages a step of `seq` completed, held by it (the page ledger is their only writer). */
  addCompletedPages(seq: Sequence, pages: readonly CompletedPage[]): void {
    if (this.isLive(seq)) this.pages.addCompleted(seq, pages);
  }

  /** Drops every sequence, seat and hold (the engine that used this scheduler is retired). */
  dispose(): void {
    for (const seq of this.liveSequences()) this.finish(seq);
    this.wantedVictims.clear();
  }

  /** Sequences another slot chose as victims while this slot's step was running leave now. */
  private leaveAsAsked(slot: Slot, plan: StepPlan): void {
    for (const seq of [...this.wantedVictims]) {
      if (seq.slot !== slot) continue;
      this.wantedVictims.delete(seq);
      if (!seq.isSeated) continue;
      this.preempt(seq);
      plan.preempted.push(seq);
    }
  }

  /**
   * Seats the slot's queue in order while seats and K/V budget allow. A head that can never
   * fit (the budget shrank, or a preempted sequence grew past it) ends at once instead of
   * blocking the queue; one that fits only once others leave waits for exactly that.
   */
  private admit(slot: Slot, plan: StepPlan): void {
    const queue = this.queues.queueOf(slot);
    while (queue.length > 0 && this.seats.hasFreeSeat(slot)) {
      const seq = queue[0]!;
      const never = this.budget.neverFits(
        slotGeometryOf(seq.slot),
        seq.prefillIds.length,
        hasKvBuffer(seq.slot),
      );
      if (never) {
        const reason = seq.outputIds.length > 0 ? 'length' : 'rejected';
        plan.ended.push({ seq, reason, message: never, ...this.finish(seq)! });
        continue;
      }
      if (!this.seat(seq)) break;
      queue.shift();
      plan.admitted.push(seq);
    }
  }

  /**
   * Gives `seq` a seat if its K/V fits: its cached prefix is held first (so making room never
   * evicts the pages it is about to read), and given back when the rest does not fit.
   */
  private seat(seq: Sequence): boolean {
    const cached = lookupPrefix(seq, this.ramPages, this.pageSize);
    this.pages.holdPrefix(seq, cached);
    if (!this.budget.fitsAfterEvicting(this.allRunning(), seq)) {
      this.pages.releaseAll(seq);
      return false;
    }
    this.seats.grant(seq);
    this.ramPages?.countLookup(seq.prefillIds.length, cached.length * this.pageSize);
    seq.numCachedTokens = cached.length * this.pageSize;
    seq.recorder.diagnose({ pageMiss: explainMiss(seq, cached, this.ramPages, this.pageSize) });
    seq.numComputed = 0;
    seq.hasStartedPrefill = false;
    moveSequence(seq, 'prefilling');
    seq.admittedOrder = ++this.admissionCounter;
    return true;
  }

  /**
   * Preempts until every decode row has room to grow. The K/V budget is global, so the victim
   * is the newest admitted sequence of any slot. One inside another slot's running step cannot
   * leave it: it is marked to leave when that step returns, and this slot does not decode
   * meanwhile (false). A sequence alone in the whole budget that still cannot grow is finished
   * (`length`).
   */
  private fitDecodeGrowth(slot: Slot, plan: StepPlan, isIdle: (other: Slot) => boolean): boolean {
    while (!this.budget.fitsAfterEvicting(this.allRunning())) {
      const holders = this.allRunning().filter((seq) => !this.wantedVictims.has(seq));
      const victim = holders.sort((a, b) => b.admittedOrder - a.admittedOrder)[0];
      if (!victim) return false;
      if (victim.slot !== slot && !isIdle(victim.slot)) {
        this.wantedVictims.add(victim);
        return false;
      }
      if (this.allRunning().length === 1) {
        const message = 'the K/V budget cannot hold this sequence';
        plan.ended.push({ seq: victim, reason: 'length', message, ...this.finish(victim)! });
        return true;
      }
      this.preempt(victim);
      plan.preempted.push(victim);
    }
    return true;
  }

  /** RUNNING → WAITING at the front of the queue; its work is recomputed on re-admission. */
  private preempt(seq: Sequence): void {
    this.leave(seq, 'preempted');
    moveSequence(seq, 'waiting');
    seq.lastQueuePosition = null;
    seq.prefillIds = seq.allIds;
    seq.numComputed = 0;
    this.queues.requeueFirst(seq);
  }

  /** Out of its queue and its seat, its pages released (finished or preempted). */
  private leave(seq: Sequence, why: 'finished' | 'preempted'): void {
    this.wantedVictims.delete(seq);
    this.queues.dequeue(seq);
    this.seats.release(seq, why);
    this.pages.releaseAll(seq);
  }

  /** Bytes the K/V budget has left now without evicting a cached page (running sequences' next step counted). */
  freeKvBytes(): number {
    return this.budget.capacityBytes - this.budget.usedBytes(this.allRunning());
  }

  private allRunning(): Sequence[] {
    return this.seats.allSeated();
  }
}

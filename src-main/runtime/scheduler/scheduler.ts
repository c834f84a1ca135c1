/**
 * Concurrency discipline (why no request can run on another's slot): a sequence is bound to
 * one slot when it is routed and is only ever placed in step jobs of that slot; each slot has
 * one runner (one worker, one ONNX Runtime session) that accepts one job at a time; K/V
 * never leaves the slot except as context pages whose key includes the slot's model,
 * tokenizer, layout and slot revisions. So a step job only ever touches its own slot.
 *
 * This file is device-free: it decides who gets a seat, which prompt chunk runs next and who
 * is preempted when the K/V budget runs out. The engine loop carries the decisions out.
 */
import type { PageMiss } from '../../telemetry/timeline';
import type { CachedPage, PageStore } from '../pages';
import type { Slot } from '../slots';
import type { KvBudget } from './kv-budget';
import { SeatLedger } from './seat-ledger';
import type { SeatHolder } from './seat-ledger';
import type { Sequence } from './sequence';

/** Scheduler limits: seats per slot (the SeatLedger holds them) and the prefill chunk (null = whole prompt in one pass). */
export interface SchedulerOptions {
  maxSeats: number;
  prefillChunkTokens: number | null;
  isPaging: boolean;
}

/** One prefill chunk to run: `tokenIds` start at prefill index `fromIndex`. */
export interface PrefillPlan {
  seq: Sequence;
  tokenIds: number[];
  isFirstChunk: boolean;
  isLastChunk: boolean;
}

/** What one step of a slot will do. */
export interface StepPlan {
  admitted: Sequence[];
  prefill: PrefillPlan | null;
  decodeRows: Sequence[];
  /** Sequences sent back to the queue to free K/V (RUNNING → WAITING), of this slot or of idle others. */
  preempted: Sequence[];
  /** A sequence that cannot grow even alone: the engine finishes it with `length`. */
  outOfMemory: Sequence[];
}

/**
 * The per-slot decisions (see the file's comment): queues of waiting sequences, seats granted
 * through the SeatLedger, and each step's plan (admissions, one prefill chunk, decode rows, preemptions).
 */
export class Scheduler {
  private readonly waiting = new Map<string, Sequence[]>();
  /** The running sequences: those holding a seat. */
  private readonly seats: SeatLedger;
  /** Victims chosen while their slot's step was running: they leave at that slot's next plan. */
  private readonly wantedVictims = new Set<Sequence>();
  private admissionCounter = 0;

  constructor(
    private readonly options: SchedulerOptions,
    private readonly budget: KvBudget,
    private readonly store: PageStore | null,
    holder: SeatHolder,
  ) {
    this.seats = new SeatLedger(options.maxSeats, holder);
  }

  /** Queues a routed sequence at the back of its slot's queue. */
  enqueue(seq: Sequence): void {
    listOf(this.waiting, seq.slot.slotId).push(seq);
  }

  /** Waiting sequences across all slots (for the queue limit). */
  get numWaiting(): number {
    let total = 0;
    for (const list of this.waiting.values()) total += list.length;
    return total;
  }

  /** Running (seated) sequences across all slots. */
  get numRunning(): number {
    return this.seats.numSeated;
  }

  /** The sequences ahead of `seq` in its slot's queue, next first. */
  waitingAhead(seq: Sequence): readonly Sequence[] {
    const queue = this.waiting.get(seq.slot.slotId) ?? [];
    const at = queue.indexOf(seq);
    return at < 0 ? queue : queue.slice(0, at);
  }

  /** Requests ahead of `seq` in its slot's queue (0 = next). */
  positionOf(seq: Sequence): number {
    return (this.waiting.get(seq.slot.slotId) ?? []).indexOf(seq);
  }

  /** The slot's running (seated) sequences, in admission order. */
  runningOn(slot: Slot): readonly Sequence[] {
    return this.seats.seatedOn(slot);
  }

  hasWork(slot: Slot): boolean {
    return this.runningOn(slot).length > 0 || (this.waiting.get(slot.slotId)?.length ?? 0) > 0;
  }

  /** Takes a sequence out of the scheduler (finished, cancelled, failed): its seat and pages go back. */
  remove(seq: Sequence, why: 'finished' | 'preempted' = 'finished'): void {
    this.wantedVictims.delete(seq);
    const queue = this.waiting.get(seq.slot.slotId);
    const index = queue?.indexOf(seq) ?? -1;
    if (queue && index >= 0) queue.splice(index, 1);
    this.seats.release(seq, why);
    this.releasePages(seq);
  }

  /**
   * Plans the next step of an idle slot: admissions, one prefill chunk, the decode batch.
   * `isIdle` says which other slots have no step in flight: only their sequences may be
   * preempted to make room (a sequence inside a running step cannot leave it).
   */
  planStep(slot: Slot, isIdle: (other: Slot) => boolean = () => false): StepPlan {
    const plan: StepPlan = { admitted: [], prefill: null, decodeRows: [], preempted: [], outOfMemory: [] };
    this.leaveAsAsked(slot, plan);
    this.admit(slot, plan);
    const canGrow = this.fitDecodeGrowth(slot, plan, isIdle);
    const running = this.runningOn(slot);
    const prefilling = this.nextToPrefill(running);
    if (prefilling) plan.prefill = this.nextChunk(prefilling);
    plan.decodeRows = canGrow ? running.filter((seq) => seq.status === 'decoding') : [];
    return plan;
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
   * The prompt with the fewest tokens left to prefill goes next (admission order breaks ties):
   * a short prompt seated behind a long one gets its first token after one chunk, not after
   * the long prompt's whole prefill; prompts of equal length keep first-come order.
   */
  private nextToPrefill(running: readonly Sequence[]): Sequence | null {
    let next: Sequence | null = null;
    for (const seq of running) {
      if (seq.status !== 'prefilling') continue;
      const isBefore =
        !next ||
        numLeftToPrefill(seq) < numLeftToPrefill(next) ||
        (numLeftToPrefill(seq) === numLeftToPrefill(next) && seq.admittedOrder < next.admittedOrder);
      if (isBefore) next = seq;
    }
    return next;
  }

  private admit(slot: Slot, plan: StepPlan): void {
    const queue = this.waiting.get(slot.slotId) ?? [];
    while (queue.length > 0 && this.seats.hasFreeSeat(slot)) {
      const seq = queue[0]!;
      const cached = this.lookup(seq);
      const numPages = Math.ceil((seq.prefillIds.length + 1) / this.budget.pageSize) - cached.length;
      if (!this.budget.makeRoom(this.allRunning(), numPages * this.budget.pageBytesOf(seq))) break;
      queue.shift();
      this.seat(seq, cached);
      plan.admitted.push(seq);
    }
  }

  /** Gives a sequence its seat: holds its cached pages and resets its prefill progress. */
  private seat(seq: Sequence, cached: CachedPage[]): void {
    this.seats.grant(seq);
    for (const page of cached) this.store!.hold(page);
    if (this.store) this.store.countLookup(seq.prefillIds.length, cached.length * this.budget.pageSize);
    seq.heldPages = [...cached];
    seq.numCachedTokens = cached.length * this.budget.pageSize;
    seq.recorder.meta.diagnosis.pageMiss = this.explainMiss(seq, cached);
    seq.numComputed = 0;
    seq.hasStartedPrefill = false;
    seq.status = 'prefilling';
    seq.admittedOrder = ++this.admissionCounter;
  }

  /** Longest cached prefix, always leaving at least one token to prefill (it makes the logits). */
  private lookup(seq: Sequence): CachedPage[] {
    if (!this.options.isPaging || !this.store || !seq.slot.pageIdentity) return [];
    const maxPages = Math.floor((seq.prefillIds.length - 1) / this.budget.pageSize);
    return this.store.lookup(seq.slot.pageIdentity, seq.prefillIds, maxPages);
  }

  /** Why the lookup found no more pages than it did (recorded with the timeline). */
  private explainMiss(seq: Sequence, found: readonly CachedPage[]): PageMiss {
    const identity = seq.slot.pageIdentity;
    if (!this.options.isPaging || !this.store || !identity)
      return {
        kind: 'paging-off',
        numCachedTokens: 0,
        numPromptTokens: seq.prefillIds.length,
        pageSize: this.budget.pageSize,
        divergedAtToken: null,
        changedRevisions: [],
      };
    const maxPages = Math.floor((seq.prefillIds.length - 1) / this.budget.pageSize);
    return this.store.explainMiss(identity, seq.prefillIds, found, maxPages);
  }

  /**
   * Preempts until every decode row has room to grow. The K/V budget is global, so the victim
   * is the newest admitted sequence of any slot. One inside another slot's running step cannot
   * leave it: it is marked to leave when that step returns, and this slot does not decode
   * meanwhile (false). A sequence alone in the whole budget that still cannot grow is finished
   * (`outOfMemory`).
   */
  private fitDecodeGrowth(slot: Slot, plan: StepPlan, isIdle: (other: Slot) => boolean): boolean {
    while (!this.budget.makeRoom(this.allRunning(), 0)) {
      const holders = this.allRunning().filter((seq) => !this.wantedVictims.has(seq));
      const victim = holders.sort((a, b) => b.admittedOrder - a.admittedOrder)[0];
      if (!victim) return false;
      if (victim.slot !== slot && !isIdle(victim.slot)) {
        this.wantedVictims.add(victim);
        return false;
      }
      if (this.allRunning().length === 1) {
        plan.outOfMemory.push(victim);
        this.remove(victim);
        return true;
      }
      this.preempt(victim);
      plan.preempted.push(victim);
    }
    return true;
  }

  /** RUNNING → WAITING at the front of the queue; its work is recomputed on re-admission. */
  private preempt(seq: Sequence): void {
    this.remove(seq, 'preempted');
    seq.status = 'waiting';
    seq.lastQueuePosition = null;
    seq.prefillIds = seq.allIds;
    seq.numComputed = 0;
    listOf(this.waiting, seq.slot.slotId).unshift(seq);
  }

  private nextChunk(seq: Sequence): PrefillPlan {
    const fromIndex = prefillFrom(seq);
    const remaining = seq.prefillIds.length - fromIndex;
    const size =
      this.options.prefillChunkTokens === null
        ? remaining
        : Math.min(remaining, this.options.prefillChunkTokens);
    return {
      seq,
      tokenIds: seq.prefillIds.slice(fromIndex, fromIndex + size),
      isFirstChunk: !seq.hasStartedPrefill,
      isLastChunk: fromIndex + size === seq.prefillIds.length,
    };
  }

  private releasePages(seq: Sequence): void {
    for (const page of seq.heldPages) this.store?.release(page);
    seq.heldPages = [];
  }

  private allRunning(): Sequence[] {
    return this.seats.allSeated();
  }
}

function listOf(map: Map<string, Sequence[]>, key: string): Sequence[] {
  let list = map.get(key);
  if (!list) map.set(key, (list = []));
  return list;
}

/** Where the sequence's next prefill chunk starts: after its cached pages, or where it left off. */
function prefillFrom(seq: Sequence): number {
  return seq.hasStartedPrefill ? seq.numComputed : seq.numCachedTokens;
}

/** Prompt tokens the sequence still has to prefill. */
function numLeftToPrefill(seq: Sequence): number {
  return seq.prefillIds.length - prefillFrom(seq);
}

import type { Slot } from '../slots/slot';
import type { Sequence } from './sequence';

/**
 * The scheduler's bookkeeping of who is alive and who waits: every live sequence by request id,
 * and each slot's queue of waiting sequences, next first. Only the scheduler holds one.
 */
export class SequenceQueues {
  private readonly live = new Map<string, Sequence>();
  private readonly waiting = new Map<string, Sequence[]>();

  /** A new sequence: alive from now on, at the back of its slot's queue. */
  add(seq: Sequence): void {
    if (this.live.has(seq.seqId)) throw new Error(`sequence ${seq.seqId} is already alive`);
    this.live.set(seq.seqId, seq);
    this.queueOf(seq.slot).push(seq);
  }

  /** The live sequence of a request, or undefined. */
  get(requestId: string): Sequence | undefined {
    return this.live.get(requestId);
  }

  /** True until `forget`. */
  isLive(seq: Sequence): boolean {
    return this.live.get(seq.seqId) === seq;
  }

  /** Every live sequence, in the order they came in. */
  all(): Sequence[] {
    return [...this.live.values()];
  }

  /** No longer alive (finished); out of its queue too. */
  forget(seq: Sequence): void {
    this.live.delete(seq.seqId);
    this.dequeue(seq);
  }

  /** Takes `seq` out of its slot's queue if it waits there. */
  dequeue(seq: Sequence): void {
    const queue = this.waiting.get(seq.slot.slotId);
    const index = queue?.indexOf(seq) ?? -1;
    if (queue && index >= 0) queue.splice(index, 1);
  }

  /** Puts a preempted sequence back at the front of its slot's queue. */
  requeueFirst(seq: Sequence): void {
    this.queueOf(seq.slot).unshift(seq);
  }

  /** The slot's queue, next first (the scheduler admits from its head). */
  queueOf(slot: Slot): Sequence[] {
    let queue = this.waiting.get(slot.slotId);
    if (!queue) this.waiting.set(slot.slotId, (queue = []));
    return queue;
  }

  /** Waiting sequences across all slots. */
  get numWaiting(): number {
    let total = 0;
    for (const queue of this.waiting.values()) total += queue.length;
    return total;
  }

  /** The sequences ahead of `seq` in its slot's queue, next first. */
  ahead(seq: Sequence): readonly Sequence[] {
    const queue = this.waiting.get(seq.slot.slotId) ?? [];
    const at = queue.indexOf(seq);
    return at < 0 ? queue : queue.slice(0, at);
  }

  /** Sequences ahead of `seq` in its slot's queue (0 = next; -1 when it waits in none). */
  positionOf(seq: Sequence): number {
    return (this.waiting.get(seq.slot.slotId) ?? []).indexOf(seq);
  }
}

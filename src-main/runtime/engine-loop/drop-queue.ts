/** How long an idle slot keeps finished sequences' K/V before a job of its own frees it (ms). */
export const DROP_DELAY_MS = 25;

/**
 * Sequences whose K/V a slot's worker must forget, per slot. The list rides on the slot's
 * next real step; an idle slot gets a job of its own only after a short quiet spell, so the
 * next request never queues behind a job that only frees memory.
 */
export class DropQueue {
  private readonly drops = new Map<string, string[]>();
  private readonly timers = new Map<string, NodeJS.Timeout>();

  /** Queues `seqId` for its slot's worker to forget. */
  add(slotId: string, seqId: string): void {
    const list = this.drops.get(slotId) ?? [];
    list.push(seqId);
    this.drops.set(slotId, list);
  }

  /** Everything queued for a slot, now handed to a job. */
  take(slotId: string): string[] {
    const list = this.drops.get(slotId) ?? [];
    this.drops.delete(slotId);
    return list;
  }

  /** Calls `flush` once the slot has been quiet for DROP_DELAY_MS, if anything is queued for it. */
  flushLater(slotId: string, flush: () => void): void {
    if (!this.drops.get(slotId)?.length || this.timers.has(slotId)) return;
    const timer = setTimeout(() => {
      this.timers.delete(slotId);
      flush();
    }, DROP_DELAY_MS);
    timer.unref();
    this.timers.set(slotId, timer);
  }

  /** Forgets everything and stops every timer (the engine is being replaced; its workers are gone). */
  clear(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.drops.clear();
  }
}

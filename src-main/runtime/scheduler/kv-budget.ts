import { kvGeometryOf, pageBytes } from '../model/kv-geometry';
import type { PageStore } from '../pages';
import type { Sequence } from './sequence';

/**
 * The K/V byte budget, counted in pages like vLLM's block pool: every cached page once (held
 * or not), plus each running sequence's pages not yet in the cache. Unheld cached pages are
 * evictable, so the free space can be made larger by evicting them, least recently used first.
 */
export class KvBudget {
  constructor(
    private capacity: number,
    private readonly store: PageStore | null,
    readonly pageSize: number,
  ) {}

  /** The budget in bytes. */
  get capacityBytes(): number {
    return this.capacity;
  }

  /** A new budget from the next step on; a smaller one is met by evicting pages, then preempting. */
  resize(bytes: number): void {
    this.capacity = bytes;
  }

  /** Bytes of one page of this sequence's model. */
  pageBytesOf(seq: Sequence): number {
    return pageBytes(kvGeometryOf(seq.slot.model), this.pageSize);
  }

  /** Pages a sequence needs for `numTokens` tokens of K/V beyond the pages it already holds. */
  privatePagesOf(seq: Sequence, numTokens: number): number {
    return Math.max(0, Math.ceil(numTokens / this.pageSize) - seq.heldPages.length);
  }

  /** Bytes in use if every running sequence grows to its size after the next step. */
  usedBytes(running: readonly Sequence[]): number {
    let bytes = this.store?.bytes ?? 0;
    for (const seq of running)
      bytes += this.privatePagesOf(seq, seq.numTokensAfterStep) * this.pageBytesOf(seq);
    return bytes;
  }

  /** True when `extraBytes` more fit, evicting unheld cached pages if that makes them fit. */
  makeRoom(running: readonly Sequence[], extraBytes: number): boolean {
    const overBytes = this.usedBytes(running) + extraBytes - this.capacityBytes;
    if (overBytes <= 0) return true;
    this.store?.evict(overBytes);
    return this.usedBytes(running) + extraBytes <= this.capacityBytes;
  }
}

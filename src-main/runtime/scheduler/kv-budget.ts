import { pageBytes } from '../model/kv-geometry';
import type { KvGeometry } from '../model/kv-geometry';
import type { RamPages } from '../pages/ram-pages';
import { slotGeometryOf } from '../slots/slot-geometry';
import { mb } from '../slots/slot';
import type { PageLedger } from './page-ledger';
import type { Sequence } from './sequence';

/**
 * The K/V byte budget, counted in pages like vLLM's block pool: every cached page once (held
 * or not), plus each running sequence's pages not yet in the cache. Unheld cached pages are
 * evictable, so the free space can be made larger by evicting them, least recently used first.
 * The capacity is read live from the settings, so a change applies from the next step.
 */
export class KvBudget {
  constructor(
    private readonly settings: { readonly kvBudgetBytes: number },
    private readonly ramPages: RamPages | null,
    private readonly ledger: PageLedger,
    readonly pageSize: number,
  ) {}

  /** The budget in bytes. */
  get capacityBytes(): number {
    return this.settings.kvBudgetBytes;
  }

  /** Bytes of one page of K/V in this geometry (a slot's: slotGeometryOf). */
  pageBytesOf(geometry: KvGeometry): number {
    return pageBytes(geometry, this.pageSize);
  }

  /** Pages a prompt of `numPromptTokens` needs to be admitted: its K/V plus the first token's. */
  pagesToAdmit(numPromptTokens: number): number {
    return Math.ceil((numPromptTokens + 1) / this.pageSize);
  }

  /**
   * Why a prompt of this many tokens can never be admitted on this model, even with nothing
   * else running and every unheld page evicted (its K/V is larger than the whole budget), or
   * null when it can be once the budget is free.
   */
  neverFits(geometry: KvGeometry, numPromptTokens: number): string | null {
    const neededBytes = this.pagesToAdmit(numPromptTokens) * this.pageBytesOf(geometry);
    if (neededBytes <= this.capacityBytes) return null;
    return `the prompt's K/V (${numPromptTokens.toLocaleString('en-US')} tokens: ${mb(neededBytes)}) is larger than the whole K/V budget (${mb(this.capacityBytes)}); raise the K/V budget or shorten the prompt`;
  }

  /** Pages a sequence needs for `numTokens` tokens of K/V beyond the pages it already holds. */
  privatePagesOf(seq: Sequence, numTokens: number): number {
    return Math.max(0, Math.ceil(numTokens / this.pageSize) - this.ledger.heldBy(seq).length);
  }

  /** Bytes in use if every running sequence grows to its size after the next step. */
  usedBytes(running: readonly Sequence[]): number {
    let bytes = this.ramPages?.bytes ?? 0;
    for (const seq of running)
      bytes += this.privatePagesOf(seq, seq.numTokensAfterStep) * this.pageBytesOf(slotGeometryOf(seq.slot));
    return bytes;
  }

  /** True when `extraBytes` more fit, evicting unheld cached pages if that makes them fit. */
  fitsAfterEvicting(running: readonly Sequence[], extraBytes: number): boolean {
    const overBytes = this.usedBytes(running) + extraBytes - this.capacityBytes;
    if (overBytes <= 0) return true;
    this.ramPages?.evict(overBytes);
    return this.usedBytes(running) + extraBytes <= this.capacityBytes;
  }
}

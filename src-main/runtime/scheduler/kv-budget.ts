import { pageBytes } from '../model/kv-geometry';
import type { KvGeometry } from '../model/kv-geometry';
import type { RamPages } from '../pages/ram-pages';
import { slotGeometryOf } from '../slots/slot-geometry';
import type { Slot } from '../slots/slot';
import { capacityStepOf, hasKvBuffer, kvGrantBytes, kvGrantOf } from './kv-grant';
import type { KvGrant } from './kv-grant';
import { mb } from '../slots/slot';
import type { PageLedger } from './page-ledger';
import type { Sequence } from './sequence';

/**
 * The K/V byte budget: the bytes K/V really takes. Pages count like vLLM's block pool: every
 * cached page once (held or not), plus each running sequence's pages not yet in the cache.
 * A slot on the bound path also holds its one K/V buffer (SlotKv): a row per seated sequence,
 * each as long as the longest, counted at exactly the size its step job grants (kv-grant.ts),
 * so a sequence that leaves gives its row back at its slot's next step. Unheld cached pages are
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
   * null when it can be once the budget is free. `hasBuffer`: the slot runs the bound path.
   */
  neverFits(geometry: KvGeometry, numPromptTokens: number, hasBuffer = false): string | null {
    const pagesBytes = this.pagesToAdmit(numPromptTokens) * this.pageBytesOf(geometry);
    const neededBytes = hasBuffer
      ? kvGrantBytes(this.grantOf(geometry, [numPromptTokens + 1]), geometry) +
        (this.ramPages ? pagesBytes : 0)
      : pagesBytes;
    if (neededBytes <= this.capacityBytes) return null;
    return `the prompt's K/V (${numPromptTokens.toLocaleString('en-US')} tokens: ${mb(neededBytes)}) is larger than the whole K/V budget (${mb(this.capacityBytes)}); raise the K/V budget or shorten the prompt`;
  }

  /** Pages a sequence needs for `numTokens` tokens of K/V beyond the pages it already holds. */
  privatePagesOf(seq: Sequence, numTokens: number): number {
    return Math.max(0, Math.ceil(numTokens / this.pageSize) - this.ledger.heldBy(seq).length);
  }

  /** The K/V buffer a bound slot needs for rows growing to `numTokens` each (null: no row). */
  grantOf(geometry: KvGeometry, numTokens: readonly number[]): KvGrant | null {
    return kvGrantOf(numTokens, capacityStepOf(this.capacityBytes, geometry, this.pageSize));
  }

  /** The grant of `slot`'s buffer for its `seated` sequences after their next step (null off the bound path). */
  slotGrantOf(slot: Slot, seated: readonly Sequence[]): KvGrant | null {
    if (!hasKvBuffer(slot)) return null;
    return this.grantOf(
      slotGeometryOf(slot),
      seated.map((seq) => seq.numTokensAfterStep),
    );
  }

  /**
   * Bytes in use if every running sequence grows to its size after the next step, and
   * `joining` (not yet seated) is admitted with its prompt.
   */
  usedBytes(running: readonly Sequence[], joining: Sequence | null = null): number {
    const bySlot = new Map<Slot, Array<{ seq: Sequence; numTokens: number }>>();
    const add = (seq: Sequence, numTokens: number) =>
      bySlot.set(seq.slot, [...(bySlot.get(seq.slot) ?? []), { seq, numTokens }]);
    for (const seq of running) add(seq, seq.numTokensAfterStep);
    if (joining) add(joining, joining.prefillIds.length + 1);
    let bytes = this.ramPages?.bytes ?? 0;
    for (const [slot, rows] of bySlot) {
      const geometry = slotGeometryOf(slot);
      const hasBuffer = hasKvBuffer(slot);
      if (hasBuffer)
        bytes += kvGrantBytes(
          this.grantOf(
            geometry,
            rows.map((row) => row.numTokens),
          ),
          geometry,
        );
      // The buffer's completed pages are copied to the RAM pages as well (none with paging off).
      if (!hasBuffer || this.ramPages)
        for (const { seq, numTokens } of rows)
          bytes += this.privatePagesOf(seq, numTokens) * this.pageBytesOf(geometry);
    }
    return bytes;
  }

  /** True when `joining` (or nothing more) fits, evicting unheld cached pages if that makes it fit. */
  fitsAfterEvicting(running: readonly Sequence[], joining: Sequence | null = null): boolean {
    const overBytes = this.usedBytes(running, joining) - this.capacityBytes;
    if (overBytes <= 0) return true;
    this.ramPages?.evict(overBytes);
    return this.usedBytes(running, joining) <= this.capacityBytes;
  }
}

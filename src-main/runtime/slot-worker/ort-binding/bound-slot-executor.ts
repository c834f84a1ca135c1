import { kvView } from '../kv-batch';
import { pageBytes } from '../../model/kv-geometry';
import type { KvGeometry } from '../../model/kv-geometry';
import { MAX_RETAINED_PASTS } from '../protocol';
import type {
  CapturedPage,
  DecodeOutcome,
  PastSource,
  PrefillOutcome,
  PrefillWork,
  RememberedSeat,
} from '../protocol';
import { StepExecutor } from '../step-executor';
import type { SeqState } from '../step-executor';
import type { PageData } from '../../pages/page-data';
import type { BoundRunner } from './bound-runner';
import type { KvGrant } from '../../scheduler/kv-grant';

/** Who holds a row of the K/V buffer: a seated sequence, a finished one's retained past, or nobody. */
type RowHolder = { kind: 'seq'; seqId: string } | { kind: 'retained'; seqId: string } | { kind: 'free' };

/**
 * Worker-side state of a slot on the bound run path: the slot's one K/V buffer (`SlotKv`, which
 * ONNX Runtime writes in place) and which sequence holds each of its rows. A prefill chunk runs
 * on its sequence's own row; a decode step on rows 0 … n − 1, its sequences brought there by
 * swapping rows (one row's copy when a sequence joins or another leaves, none while the batch
 * is unchanged). Pages are copied out of a row and into a fresh one; a finished sequence's row
 * stays as its retained past (up to MAX_RETAINED_PASTS, least recent out) until a next turn
 * takes it or its row is needed. The jobs, replies, stamps and running ahead are shared with
 * the onnxruntime-node executor (step-executor.ts), which stays the fallback.
 */
export class BoundSlotExecutor extends StepExecutor {
  private holders: RowHolder[] = [];
  /** Retained pasts, least recent first: seqId → tokens kept (its completed pages). */
  private readonly retained = new Map<string, number>();

  constructor(
    private readonly runner: BoundRunner,
    now: () => number,
  ) {
    super(now);
    this.holders = Array.from({ length: runner.kv.maxRows }, () => ({ kind: 'free' }));
  }

  protected get geometry(): KvGeometry {
    return this.runner.spec.geometry;
  }

  override get isRunOnThisThread(): boolean {
    return this.runner.runThread === 'caller';
  }

  /** The slot's one K/V buffer's real bytes, every reply (the Slots card says them). */
  protected kvBytes(): number {
    return this.runner.kv.bytes;
  }

  protected async prefillChunk(
    pageSize: number,
    work: PrefillWork,
    pickedUpAt: number,
  ): Promise<PrefillOutcome> {
    const startedAt = this.now();
    let pastSource: PastSource | null = null;
    if (work.cachedPages !== null || this.rowOf(work.seqId) === null) {
      pastSource = this.seat(work, pageSize);
      this.seatState(work);
    }
    const state = this.stateOf(work.seqId);
    const row = this.rowOf(work.seqId)!;
    const numNew = work.tokenIds.length;
    this.runner.ensureSize(this.holders.length, this.runner.kv.numTokensOf(row) + numNew, pageSize);
    const contextReadyAt = this.now();
    const result = await this.runner.forward(
      { first: row, count: 1 },
      BigInt64Array.from(work.tokenIds, BigInt),
      numNew,
    );
    const logitsAt = this.now();
    const pages = this.capture(work.seqId, state, pageSize);
    // The last position's logits (a graph without logits-to-keep returns every position's).
    const last = (result.numPositions - 1) * result.vocabSize;
    const logits = result.logits.subarray(last, last + result.vocabSize);
    const sampled = work.isLastChunk ? state.sampler.sample(logits) : null;
    if (sampled) state.pendingTokenId = sampled.tokenId;
    return { seqId: work.seqId, pastSource, pickedUpAt, startedAt, contextReadyAt, logitsAt, sampled, pages };
  }

  /** Gives a first chunk's sequence a row: its conversation's retained past, or a free row filled from pages. */
  private seat(work: PrefillWork, pageSize: number): PastSource {
    const pages = work.cachedPages ?? [];
    const numTokens = pages.length * pageSize;
    const retainedRow =
      work.retainedFrom && pages.length > 0 ? this.retainedRowOf(work.retainedFrom, numTokens) : null;
    if (retainedRow !== null) {
      this.retained.delete(work.retainedFrom!);
      this.holders[retainedRow] = { kind: 'seq', seqId: work.seqId };
      this.runner.kv.truncate(retainedRow, numTokens);
      return 'retained';
    }
    const row = this.freeRow();
    this.holders[row] = { kind: 'seq', seqId: work.seqId };
    this.runner.ensureSize(this.holders.length, numTokens + work.tokenIds.length, pageSize);
    const kv = this.runner.kv;
    kv.clear(row);
    pages.forEach((page, index) => kv.copyPageIn(row, index, pageSize, this.pageView(page)));
    return pages.length > 0 ? 'pages' : 'none';
  }

  /** A free row filled from the pages, held as a retained past (sized for the next turn's chunk). */
  protected seatRemembered(seat: RememberedSeat, pageSize: number): void {
    const numTokens = seat.pages.length * pageSize;
    if (numTokens === 0) return;
    const row = this.freeRow();
    this.holders[row] = { kind: 'retained', seqId: seat.seqId };
    // Sized as the next turn's grant will be (its tokens rounded to the same step): a spare
    // margin here would make that grant relay the whole seated past once more (tens of ms).
    this.runner.ensureSize(this.holders.length, numTokens + 1, pageSize);
    const kv = this.runner.kv;
    kv.clear(row);
    seat.pages.forEach((page, index) => kv.copyPageIn(row, index, pageSize, this.pageView(page)));
    this.keepRetained(seat.seqId, numTokens);
  }

  /** A row nobody holds: a free one, else the least recent retained past's, else a new one (the buffer grows). */
  private freeRow(): number {
    const free = this.holders.findIndex((holder) => holder.kind === 'free');
    if (free >= 0) return free;
    const oldest = this.retained.keys().next();
    if (!oldest.done) {
      const row = this.retainedRowOf(oldest.value, 0)!;
      this.retained.delete(oldest.value);
      return row;
    }
    this.holders.push({ kind: 'free' });
    this.runner.ensureSize(this.holders.length, 0, this.pageSize);
    while (this.holders.length < this.runner.kv.maxRows) this.holders.push({ kind: 'free' });
    return this.holders.findIndex((holder) => holder.kind === 'free');
  }

  /**
   * Lays the buffer out to the scheduler's grant: the seated rows first, then the most recent
   * retained pasts while rows are spare and they fit the capacity (the others are freed). A
   * seated row is never cut: the grant counts every seated sequence, so this only guards.
   */
  protected override applyGrant(grant: KvGrant): void {
    const kv = this.runner.kv;
    const seated = this.rowsHeldBy('seq');
    const numRows = Math.max(grant.numRows, seated.length);
    const capacity = Math.max(grant.capacity, ...seated.map((row) => kv.numTokensOf(row)));
    if (numRows === kv.maxRows && capacity === kv.capacity) return;
    const retained = this.rowsHeldBy('retained')
      .filter((row) => kv.numTokensOf(row) <= capacity)
      .reverse()
      .slice(0, numRows - seated.length);
    const keep = [...seated, ...retained];
    for (const row of this.rowsHeldBy('retained'))
      if (!keep.includes(row)) this.retained.delete((this.holders[row] as { seqId: string }).seqId);
    this.runner.relay(keep, numRows, capacity);
    this.holders = Array.from({ length: numRows }, (_, row) =>
      row < keep.length ? this.holders[keep[row]!]! : { kind: 'free' },
    );
  }

  /** Rows held by a seated sequence or by a retained past, least recent retained first. */
  private rowsHeldBy(kind: 'seq' | 'retained'): number[] {
    if (kind === 'seq') return this.holders.flatMap((holder, row) => (holder.kind === 'seq' ? [row] : []));
    return [...this.retained.keys()].flatMap((seqId) => {
      const row = this.retainedRowOf(seqId, 0);
      return row === null ? [] : [row];
    });
  }

  /** One batched decode forward over `rows`, each fed the token it sampled last. */
  protected async decodeOnce(pageSize: number, rows: string[]): Promise<DecodeOutcome> {
    const startedAt = this.now();
    this.gatherFront(rows);
    const kv = this.runner.kv;
    const longest = Math.max(...rows.map((_, r) => kv.numTokensOf(r)));
    this.runner.ensureSize(this.holders.length, longest + 1, pageSize);
    const inputIds = BigInt64Array.from(rows, (seqId) => BigInt(this.pendingTokenOf(seqId)));
    const result = await this.runner.forward({ first: 0, count: rows.length }, inputIds, 1);
    const logitsAt = this.now();
    const pages: CapturedPage[] = [];
    const sampled = rows.map((seqId, r) => {
      const state = this.stateOf(seqId);
      pages.push(...this.capture(seqId, state, pageSize));
      const token = state.sampler.sample(
        result.logits.subarray(r * result.vocabSize, (r + 1) * result.vocabSize),
      );
      state.pendingTokenId = token.tokenId;
      return { seqId, ...token };
    });
    return { startedAt, logitsAt, rows: sampled, pages };
  }

  /** Brings `rows` (in order) to rows 0 … n − 1 of the buffer, swapping out whoever held those. */
  private gatherFront(rows: string[]): void {
    rows.forEach((seqId, target) => {
      const row = this.rowOf(seqId);
      if (row === null) throw new Error(`sequence ${seqId} has no K/V in this slot`);
      if (row === target) return;
      this.runner.kv.swapRows(row, target);
      [this.holders[row], this.holders[target]] = [this.holders[target]!, this.holders[row]!];
    });
  }

  /** Announces every page of `seqId` completed since the last capture; the copy runs after the reply. */
  private capture(seqId: string, state: SeqState, pageSize: number): CapturedPage[] {
    if (state.nextCapturePage === null) return [];
    const row = this.rowOf(seqId)!;
    const firstPage = state.nextCapturePage;
    const numPages = Math.floor(this.runner.kv.numTokensOf(row) / pageSize) - firstPage;
    if (numPages <= 0) return [];
    const buffers = this.pageBuffers.take(numPages, pageBytes(this.runner.spec.geometry, pageSize));
    const pages = buffers.map((data, i) => ({ seqId, pageIndex: firstPage + i, data }));
    // The row is looked up when the copy runs: swaps may have moved it by then (never its columns).
    for (const page of pages)
      this.pendingCopies.push(() =>
        this.runner.kv.copyPageOut(this.heldRowOf(seqId), page.pageIndex, pageSize, this.pageView(page.data)),
      );
    state.nextCapturePage = firstPage + numPages;
    return pages;
  }

  private pageView(page: PageData) {
    return kvView(this.runner.spec.geometry, page.buffer, page.byteOffset, page.byteLength);
  }

  /** The row of a seated sequence, or null. */
  private rowOf(seqId: string): number | null {
    const row = this.holders.findIndex((h) => h.kind === 'seq' && h.seqId === seqId);
    return row >= 0 ? row : null;
  }

  /** The row holding `seqId`'s K/V, seated or retained (a page copy may outlive its seat). */
  private heldRowOf(seqId: string): number {
    const row = this.holders.findIndex((h) => h.kind !== 'free' && h.seqId === seqId);
    if (row < 0) throw new Error(`sequence ${seqId} has no K/V in this slot`);
    return row;
  }

  /** The row of a retained past holding at least `numTokens` tokens, or null. */
  private retainedRowOf(seqId: string, numTokens: number): number | null {
    const held = this.retained.get(seqId);
    if (held === undefined || held < numTokens) return null;
    const row = this.holders.findIndex((h) => h.kind === 'retained' && h.seqId === seqId);
    return row >= 0 ? row : null;
  }

  /** Leaves a sequence's row as its retained past (up to its completed pages) or frees it. */
  protected forget(seqId: string): void {
    const row = this.rowOf(seqId);
    const numTokens = (this.seqs.get(seqId)?.nextCapturePage ?? 0) * this.pageSize;
    this.seqs.delete(seqId);
    if (this.continueRows) this.continueRows.rows = this.continueRows.rows.filter((id) => id !== seqId);
    if (row === null) return;
    if (numTokens <= 0 || numTokens > this.runner.kv.numTokensOf(row)) {
      this.holders[row] = { kind: 'free' };
      return;
    }
    this.runner.kv.truncate(row, numTokens);
    this.holders[row] = { kind: 'retained', seqId };
    this.keepRetained(seqId, numTokens);
  }

  /** Notes the row now holding `seqId` as its retained past; the least recent beyond the cap are freed. */
  private keepRetained(seqId: string, numTokens: number): void {
    this.retained.delete(seqId);
    this.retained.set(seqId, numTokens);
    while (this.retained.size > MAX_RETAINED_PASTS) {
      const oldest = this.retained.keys().next().value!;
      const oldRow = this.retainedRowOf(oldest, 0);
      if (oldRow !== null) this.holders[oldRow] = { kind: 'free' };
      this.retained.delete(oldest);
    }
  }
}

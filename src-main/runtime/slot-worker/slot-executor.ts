import { KvBatch, SPARE_COLUMNS, kvView } from './kv-batch';
import type { ForwardKv } from './kv-batch';
import { pageBytes } from '../model/kv-geometry';
import type { KvGeometry } from '../model/kv-geometry';
import { lastLogits } from './model-runner';
import type { ForwardResult, LogitsWanted } from './model-runner';
import type {
  CapturedPage,
  DecodeOutcome,
  PastSource,
  PrefillOutcome,
  PrefillWork,
  RememberedSeat,
} from './protocol';
import { PendingAdvance } from './pending-advance';
import { RetainedPasts } from './retained-pasts';
import { StepExecutor } from './step-executor';
import type { SeqState } from './step-executor';
import type { PageData } from '../pages/page-data';

/** The one thing the executor needs from a model: a forward over a K/V batch. */
export interface Forwarder {
  readonly geometry: KvGeometry;
  /** 'new' when forwards return only the new columns (a past may then keep spare columns). */
  readonly kvForm: ForwardKv['form'];
  forward(
    batch: KvBatch,
    inputIds: BigInt64Array,
    numNew: number,
    wanted?: LogitsWanted,
  ): Promise<ForwardResult>;
}

/**
 * Worker-side state of one slot: the K/V of sequences mid-prefill (one row each), the decode
 * batch, and each sequence's sampler. A step runs the prefill chunk first, then the batched
 * decode, so a long prompt is cut into chunks that interleave with everyone else's tokens.
 * Once a reply is built, `runAhead` starts the next decode step of the same rows (one step ahead).
 */
export class SlotExecutor extends StepExecutor {
  private readonly prefilling = new Map<string, PendingAdvance>();
  private decodeBatch: KvBatch | null = null;
  /** Finished sequences' pasts, for their conversations' next turns. */
  readonly retained = new RetainedPasts();

  constructor(
    private readonly model: Forwarder,
    now: () => number,
  ) {
    super(now);
  }

  protected get geometry(): KvGeometry {
    return this.model.geometry;
  }

  /** Its K/V lives in per-step arrays, counted by their pages: no one buffer to report. */
  protected kvBytes(): undefined {
    return undefined;
  }

  protected async prefillChunk(
    pageSize: number,
    work: PrefillWork,
    pickedUpAt: number,
  ): Promise<PrefillOutcome> {
    const startedAt = this.now();
    let batch = this.prefilling.get(work.seqId)?.batch;
    let pastSource: PastSource | null = null;
    if (work.cachedPages !== null || !batch) {
      const pages = (work.cachedPages ?? []).map((page) => this.pageView(page));
      const reused =
        work.retainedFrom && pages.length > 0
          ? this.retained.take(work.retainedFrom, pages.length * pageSize, work.seqId)
          : null;
      pastSource = reused ? 'retained' : pages.length > 0 ? 'pages' : 'none';
      batch =
        reused ??
        (pages.length > 0
          ? KvBatch.fromPages(this.model.geometry, work.seqId, pages, pageSize, this.spareColumnsFor(work))
          : KvBatch.empty(this.model.geometry, [work.seqId]));
      this.seatState(work);
    }
    // A graph returning a whole present appends after the past's last column: no spare columns allowed.
    if (this.model.kvForm === 'present') batch = batch.withoutSpareColumns();
    const state = this.stateOf(work.seqId);
    const contextReadyAt = this.now();
    const numNew = work.tokenIds.length;
    const result = await this.model.forward(batch, BigInt64Array.from(work.tokenIds, BigInt), numNew);
    const logitsAt = this.now();
    // The first token does not wait for the new columns to be written (or the past to move).
    const advance = work.isLastChunk
      ? new PendingAdvance(batch, result.kv, numNew)
      : PendingAdvance.alreadyAdvanced(batch, result.kv, numNew);
    this.prefilling.set(work.seqId, advance);
    const pages = this.capture(
      () => advance.batch,
      advance.numTokensOf(work.seqId),
      work.seqId,
      state,
      pageSize,
    );
    const sampled = work.isLastChunk ? state.sampler.sample(lastLogits(result, 0)) : null;
    if (sampled) state.pendingTokenId = sampled.tokenId;
    return { seqId: work.seqId, pastSource, pickedUpAt, startedAt, contextReadyAt, logitsAt, sampled, pages };
  }

  /**
   * Spare columns a past assembled from pages gets: this chunk's tokens and SPARE_COLUMNS more for
   * the decode steps after it (so neither moves the past); none for a graph returning a whole
   * present, which appends after the past's last column.
   */
  private spareColumnsFor(work: PrefillWork): number {
    return this.model.kvForm === 'present' ? 0 : work.tokenIds.length + SPARE_COLUMNS;
  }

  protected seatRemembered(seat: RememberedSeat, pageSize: number): void {
    if (seat.pages.length === 0) return;
    const pages = seat.pages.map((page) => this.pageView(page));
    const room = this.model.kvForm === 'present' ? 0 : SPARE_COLUMNS;
    const past = KvBatch.fromPages(this.model.geometry, seat.seqId, pages, pageSize, room);
    this.retained.keep(past, seat.seqId, pages.length * pageSize);
  }

  /** One batched decode forward over `rows`, each fed the token it sampled last. */
  protected async decodeOnce(pageSize: number, rows: string[]): Promise<DecodeOutcome> {
    const startedAt = this.now();
    const batch = this.composeDecodeBatch(rows);
    const inputIds = BigInt64Array.from(rows, (seqId) => BigInt(this.pendingTokenOf(seqId)));
    const result = await this.model.forward(batch, inputIds, 1);
    const logitsAt = this.now();
    this.decodeBatch = batch.advanced(result.kv, 1);
    const pages: CapturedPage[] = [];
    const sampled = rows.map((seqId, r) => {
      const state = this.stateOf(seqId);
      const decoded = this.decodeBatch!;
      const numTokens = decoded.rows[decoded.rowIndexOf(seqId)]!.numTokens;
      pages.push(...this.capture(() => decoded, numTokens, seqId, state, pageSize));
      const token = state.sampler.sample(lastLogits(result, r));
      state.pendingTokenId = token.tokenId;
      return { seqId, ...token };
    });
    return { startedAt, logitsAt, rows: sampled, pages };
  }

  /** Reuses the decode batch when its rows are unchanged; otherwise gathers rows anew. */
  private composeDecodeBatch(wanted: string[]): KvBatch {
    const current = this.decodeBatch;
    if (
      current &&
      current.rows.length === wanted.length &&
      current.rows.every((row, i) => row.seqId === wanted[i])
    )
      return current;
    const alone = wanted.length === 1 ? this.loneJoining(wanted[0]!) : null;
    if (alone) return alone;
    const picks = wanted.map((seqId) => {
      if (current?.rows.some((row) => row.seqId === seqId)) return { batch: current, seqId };
      const joining = this.prefilling.get(seqId);
      if (!joining) throw new Error(`sequence ${seqId} has no K/V in this slot`);
      this.prefilling.delete(seqId);
      return { batch: joining.batch, seqId };
    });
    return KvBatch.gather(this.model.geometry, picks);
  }

  /**
   * The past of a sequence that starts decoding alone, as its prefill left it (spare columns and
   * all): gathering it would copy every column (25 MB at 1,024 tokens on the ~100M model) and, with
   * no spare column left, the step's new column would move it once more. Null when it is not a one-row,
   * unpadded prefill batch.
   */
  private loneJoining(seqId: string): KvBatch | null {
    if (this.decodeBatch?.rows.some((row) => row.seqId === seqId)) return null;
    const batch = this.prefilling.get(seqId)?.batch;
    if (batch?.rows.length !== 1 || batch.rows[0]!.numPad !== 0) return null;
    this.prefilling.delete(seqId);
    return batch;
  }

  /** Announces every page of `seqId` completed since the last capture; the copy runs after the reply. */
  private capture(
    source: () => KvBatch,
    numTokens: number,
    seqId: string,
    state: SeqState,
    pageSize: number,
  ): CapturedPage[] {
    if (state.nextCapturePage === null) return [];
    const firstPage = state.nextCapturePage;
    const numPages = Math.floor(numTokens / pageSize) - firstPage;
    if (numPages <= 0) return [];
    const buffers = this.pageBuffers.take(numPages, pageBytes(this.model.geometry, pageSize));
    const pages = buffers.map((data, i) => ({ seqId, pageIndex: firstPage + i, data }));
    for (const page of pages)
      this.pendingCopies.push(() =>
        source().copyPage(seqId, page.pageIndex, pageSize, this.pageView(page.data)),
      );
    state.nextCapturePage = firstPage + numPages;
    return pages;
  }

  /** A page's K/V elements in this slot's dtype, as a view on its shared memory. */
  private pageView(page: PageData) {
    return kvView(this.model.geometry, page.buffer, page.byteOffset, page.byteLength);
  }

  /** Keeps a departing sequence's past up to its last page already in the RAM tier. */
  private retain(seqId: string): void {
    const numPages = this.seqs.get(seqId)?.nextCapturePage ?? 0;
    const batch = this.prefilling.has(seqId)
      ? this.prefilling.get(seqId)!.batch
      : this.decodeBatch?.rows.some((row) => row.seqId === seqId)
        ? this.decodeBatch
        : null;
    if (batch && numPages > 0) this.retained.keep(batch, seqId, numPages * this.pageSize);
  }

  protected forget(seqId: string): void {
    this.retain(seqId);
    this.prefilling.delete(seqId);
    this.seqs.delete(seqId);
    if (this.continueRows) this.continueRows.rows = this.continueRows.rows.filter((id) => id !== seqId);
    const batch = this.decodeBatch;
    if (!batch?.rows.some((row) => row.seqId === seqId)) return;
    const remaining = batch.rows.filter((row) => row.seqId !== seqId);
    this.decodeBatch =
      remaining.length === 0
        ? null
        : KvBatch.gather(
            batch.geometry,
            remaining.map((row) => ({ batch, seqId: row.seqId })),
          );
  }
}

import { KvBatch, pageFloats } from './kv-batch';
import type { KvGeometry } from './kv-batch';
import { logitsRow } from './model-runner';
import type { ForwardResult } from './model-runner';
import type {
  CapturedPage,
  DecodeOutcome,
  DecodeWork,
  PrefillOutcome,
  StepJob,
  SteppedReply,
} from './protocol';

/** The one thing the executor needs from a model: a forward over a K/V batch. */
export interface Forwarder {
  readonly geometry: KvGeometry;
  forward(batch: KvBatch, inputIds: BigInt64Array, numNew: number): Promise<ForwardResult>;
}

interface SequenceKv {
  batch: KvBatch;
  nextCapturePage: number | null;
}

/**
 * Worker-side state of one slot: the K/V of sequences mid-prefill (one row each) and the
 * decode batch. A step runs the prefill chunk first, then the batched decode, so a long
 * prompt is cut into chunks that interleave with everyone else's tokens.
 */
export class SlotExecutor {
  private readonly prefilling = new Map<string, SequenceKv>();
  private decodeBatch: KvBatch | null = null;
  private readonly decodeCapture = new Map<string, number | null>();

  constructor(
    private readonly model: Forwarder,
    private readonly now: () => number,
  ) {}

  /** Number of sequences whose K/V this executor holds (for leak tests). */
  get numHeldSequences(): number {
    return this.prefilling.size + (this.decodeBatch?.rows.length ?? 0);
  }

  /** Runs one step job and reports stamps, logits and completed pages. */
  async step(job: StepJob): Promise<SteppedReply> {
    for (const seqId of job.drop) this.forget(seqId);
    const prefill = job.prefill ? await this.prefillChunk(job, job.prefill) : null;
    const decode =
      job.decode && job.decode.rows.length > 0 ? await this.decodeStep(job.pageSize, job.decode) : null;
    if (job.decode && job.decode.rows.length === 0) this.decodeBatch = null;
    return { type: 'stepped', prefill, decode };
  }

  private async prefillChunk(job: StepJob, work: NonNullable<StepJob['prefill']>): Promise<PrefillOutcome> {
    const startedAt = this.now();
    let state = this.prefilling.get(work.seqId);
    if (work.cachedPages !== null || !state) {
      const pages = (work.cachedPages ?? []).map((buffer) => new Float32Array(buffer));
      const batch =
        pages.length > 0
          ? KvBatch.fromPages(this.model.geometry, work.seqId, pages, job.pageSize)
          : KvBatch.empty(this.model.geometry, [work.seqId]);
      state = { batch, nextCapturePage: work.captureFromPage };
      this.prefilling.set(work.seqId, state);
    }
    const contextReadyAt = this.now();
    const numNew = work.tokenIds.length;
    const result = await this.model.forward(state.batch, BigInt64Array.from(work.tokenIds, BigInt), numNew);
    const logitsAt = this.now();
    state.batch = state.batch.advanced(result.present, numNew);
    const pages = this.capture(state.batch, work.seqId, state, job.pageSize);
    const logits = work.isLastChunk ? logitsRow(result, numNew, 0, numNew - 1) : null;
    return { seqId: work.seqId, startedAt, contextReadyAt, logitsAt, logits, pages };
  }

  private async decodeStep(pageSize: number, work: DecodeWork): Promise<DecodeOutcome> {
    const startedAt = this.now();
    const batch = this.composeDecodeBatch(work);
    const inputIds = BigInt64Array.from(work.rows, (row) => BigInt(row.tokenId));
    const result = await this.model.forward(batch, inputIds, 1);
    const logitsAt = this.now();
    this.decodeBatch = batch.advanced(result.present, 1);
    const pages: CapturedPage[] = [];
    for (const row of work.rows) {
      const capture = { nextCapturePage: this.decodeCapture.get(row.seqId) ?? null };
      pages.push(...this.capture(this.decodeBatch, row.seqId, capture, pageSize));
      this.decodeCapture.set(row.seqId, capture.nextCapturePage);
    }
    const rows = work.rows.map((row, r) => ({ seqId: row.seqId, logits: logitsRow(result, 1, r, 0) }));
    return { startedAt, logitsAt, rows, pages };
  }

  /** Reuses the decode batch when its rows are unchanged; otherwise gathers rows anew. */
  private composeDecodeBatch(work: DecodeWork): KvBatch {
    const wanted = work.rows.map((row) => row.seqId);
    const current = this.decodeBatch;
    if (
      current &&
      current.rows.length === wanted.length &&
      current.rows.every((row, i) => row.seqId === wanted[i])
    )
      return current;
    const picks = wanted.map((seqId) => {
      if (current?.rows.some((row) => row.seqId === seqId)) return { batch: current, seqId };
      const joining = this.prefilling.get(seqId);
      if (!joining) throw new Error(`sequence ${seqId} has no K/V in this slot`);
      this.prefilling.delete(seqId);
      this.decodeCapture.set(seqId, joining.nextCapturePage);
      return { batch: joining.batch, seqId };
    });
    for (const row of current?.rows ?? [])
      if (!wanted.includes(row.seqId)) this.decodeCapture.delete(row.seqId);
    return KvBatch.gather(this.model.geometry, picks);
  }

  /** Copies every page of `seqId` that completed since the last capture into shared memory. */
  private capture(
    batch: KvBatch,
    seqId: string,
    state: { nextCapturePage: number | null },
    pageSize: number,
  ): CapturedPage[] {
    if (state.nextCapturePage === null) return [];
    const numTokens = batch.rows[batch.rowIndexOf(seqId)]!.numTokens;
    const pages: CapturedPage[] = [];
    const floats = pageFloats(this.model.geometry, pageSize);
    for (let pageIndex = state.nextCapturePage; (pageIndex + 1) * pageSize <= numTokens; pageIndex++) {
      const buffer = new SharedArrayBuffer(floats * 4);
      batch.copyPage(seqId, pageIndex, pageSize, new Float32Array(buffer));
      pages.push({ seqId, pageIndex, buffer });
      state.nextCapturePage = pageIndex + 1;
    }
    return pages;
  }

  private forget(seqId: string): void {
    this.prefilling.delete(seqId);
    this.decodeCapture.delete(seqId);
    if (this.decodeBatch?.rows.some((row) => row.seqId === seqId)) {
      const remaining = this.decodeBatch.rows.filter((row) => row.seqId !== seqId);
      const batch = this.decodeBatch;
      this.decodeBatch =
        remaining.length === 0
          ? null
          : KvBatch.gather(
              batch.geometry,
              remaining.map((row) => ({ batch, seqId: row.seqId })),
            );
    }
  }
}

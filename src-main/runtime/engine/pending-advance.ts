import type { ForwardKv, KvBatch } from './kv-batch';

/**
 * A prefill chunk's batch after its forward, advanced by its new columns when first read. A past
 * without room for them moves whole to wider tensors (a copy of every column): for a chunk that
 * samples the first token the move waits until after the reply, on the next job or step ahead
 * that reads the batch, instead of holding the token back. Reading is idempotent.
 */
export class PendingAdvance {
  private advanced: KvBatch | null = null;

  constructor(
    private readonly past: KvBatch,
    private readonly kv: ForwardKv,
    private readonly numNew: number,
  ) {}

  /** An advance done at once (no move to put off, or no token waiting on it). */
  static now(past: KvBatch, kv: ForwardKv, numNew: number): PendingAdvance {
    const pending = new PendingAdvance(past, kv, numNew);
    void pending.batch;
    return pending;
  }

  /** Tokens of `seqId` once advanced, known without advancing. */
  numTokensOf(seqId: string): number {
    return this.past.rows[this.past.rowIndexOf(seqId)]!.numTokens + this.numNew;
  }

  /** The advanced batch (advancing it now if that was put off). */
  get batch(): KvBatch {
    this.advanced ??= this.past.advanced(this.kv, this.numNew);
    return this.advanced;
  }
}

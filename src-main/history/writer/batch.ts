import type { Timeline } from '../../telemetry/timeline/schema';
import type { RunRecord } from '../queries/runs';
import type { SlotEventRecord } from '../../telemetry/residency/schema';

/** A run whose row could not be inserted at once (database busy or full): written before its timelines. */
export type PendingRun = Omit<RunRecord, 'numRequests'>;

/**
 * A client's figures reported after the timeline finished: TTFT and (when known) E2E on the
 * client's own clock, the transport judgeClientTtft derived, and the inbound network time when
 * the client's stamps share this process's clock. They replace any figures stored before.
 */
export interface ClientTtftUpdate {
  requestId: string;
  clientTtftMs: number;
  /** client − server TTFT as judgeClientTtft derived it (ms). */
  transportMs: number;
  clientE2eMs?: number | null;
  networkInMs?: number | null;
}

/** What one flush writes, in one transaction: runs, then inserts, then client TTFT updates. */
export interface WriteBatch {
  runs: PendingRun[];
  timelines: Timeline[];
  slotEvents: SlotEventRecord[];
  clientTtfts: ClientTtftUpdate[];
}

/** Where batches go. `writeBatch` is all-or-nothing: it throws and writes nothing on failure. */
export interface BatchSink {
  writeBatch(batch: WriteBatch): void;
}

/** Number of items in a batch. */
export function batchSize(batch: WriteBatch): number {
  return batch.runs.length + batch.timelines.length + batch.slotEvents.length + batch.clientTtfts.length;
}

const EMPTY: WriteBatch = { runs: [], timelines: [], slotEvents: [], clientTtfts: [] };

/** The batch split into one-item batches, in write order, to isolate the item a failed batch choked on. */
export function singleItemBatches(batch: WriteBatch): WriteBatch[] {
  return [
    ...batch.runs.map((r) => ({ ...EMPTY, runs: [r] })),
    ...batch.timelines.map((t) => ({ ...EMPTY, timelines: [t] })),
    ...batch.slotEvents.map((e) => ({ ...EMPTY, slotEvents: [e] })),
    ...batch.clientTtfts.map((u) => ({ ...EMPTY, clientTtfts: [u] })),
  ];
}

/** How many of each kind the first `n` items of the batch (in write order) hold. */
export function prefixCounts(batch: WriteBatch, n: number): Record<keyof WriteBatch, number> {
  let left = n;
  const take = (size: number) => {
    const k = Math.min(size, left);
    left -= k;
    return k;
  };
  return {
    runs: take(batch.runs.length),
    timelines: take(batch.timelines.length),
    slotEvents: take(batch.slotEvents.length),
    clientTtfts: take(batch.clientTtfts.length),
  };
}

import type { Timeline } from '../../telemetry/timeline';
import type { SlotEventRecord } from '../slot-event';

/** A client TTFT reported after the timeline finished (ms, the client's own clock). */
export interface ClientTtftUpdate {
  requestId: string;
  clientTtftMs: number;
}

/** What one flush writes, in one transaction: inserts first, then client TTFT updates. */
export interface WriteBatch {
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
  return batch.timelines.length + batch.slotEvents.length + batch.clientTtfts.length;
}

/** The batch split into one-item batches, to isolate the item a failed batch choked on. */
export function singleItemBatches(batch: WriteBatch): WriteBatch[] {
  return [
    ...batch.timelines.map((t) => ({ timelines: [t], slotEvents: [], clientTtfts: [] })),
    ...batch.slotEvents.map((e) => ({ timelines: [], slotEvents: [e], clientTtfts: [] })),
    ...batch.clientTtfts.map((u) => ({ timelines: [], slotEvents: [], clientTtfts: [u] })),
  ];
}

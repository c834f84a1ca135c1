import { Readable } from 'node:stream';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Timeline } from '../timeline/schema';

/** Timelines to export: an array, a generator, or the store's batches flattened. */
export type TimelineSource = Iterable<Timeline> | AsyncIterable<Timeline>;

/** Whether to end the output stream when done (false for process.stdout). */
export interface StreamOutOptions {
  isEndingOutput?: boolean;
}

/** Batches of timelines (as the store yields them) as one stream of timelines. */
export function* flattenBatches(batches: Iterable<readonly Timeline[]>): Generator<Timeline> {
  for (const batch of batches) yield* batch;
}

/**
 * Pulls `chunks` into `out` with backpressure: a chunk is produced only when `out` has room, so
 * memory stays flat however many rows the source holds.
 */
export async function streamOut(
  chunks: AsyncIterable<string> | Iterable<string>,
  out: Writable,
  options: StreamOutOptions = {},
): Promise<void> {
  await pipeline(Readable.from(chunks, { objectMode: false }), out, { end: options.isEndingOutput ?? true });
}

/**
 * The chunks `each` makes from every timeline of `source`, as one lazy stream, and how many
 * timelines it has read so far (the exporters' row count once the stream is drained).
 */
export function mapTimelines<C>(
  source: TimelineSource,
  each: (t: Timeline, index: number) => Iterable<C>,
): { chunks: AsyncGenerator<C>; count: () => number } {
  let numRead = 0;
  async function* chunks() {
    for await (const t of source) yield* each(t, numRead++);
  }
  return { chunks: chunks(), count: () => numRead };
}

import type { Writable } from 'node:stream';
import type { StreamOutOptions, TimelineSource } from './stream-out';
import { mapTimelines, streamOut } from './stream-out';

/**
 * Streams each timeline as one JSON line (the full Timeline, every field): the lossless export,
 * and a format `importTrace*` reads back. Resolves to the number of lines.
 */
export async function writeJsonl(
  source: TimelineSource,
  out: Writable,
  options: StreamOutOptions = {},
): Promise<number> {
  const lines = mapTimelines(source, (t) => [`${JSON.stringify(t)}\n`]);
  await streamOut(lines.chunks, out, options);
  return lines.count();
}

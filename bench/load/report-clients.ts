import type { RequestRecord } from './driver';
import type { LoadHost } from './load-host';
import { isOk } from './summary';

/**
 * Hands what the client stamped of every normal finish to the host: the send and the first and
 * last content chunks, on the client's clock (the host derives the figures: deriveClientFigures).
 */
export async function reportClientFigures(host: LoadHost, records: readonly RequestRecord[]): Promise<void> {
  for (const r of records.filter(isOk))
    if (r.seen.requestId && r.seen.chunkAts.length > 0)
      await host.reportClient(r.seen.requestId, {
        sentAt: r.seen.sentAt,
        firstContentAt: r.seen.chunkAts[0]!,
        lastContentAt: r.seen.chunkAts.at(-1)!,
      });
}

import type { RequestRecord } from './driver';
import type { LoadHost } from './load-host';
import { isOk } from './summary';

/**
 * Hands what the client measured of every normal finish to the host: TTFT (send → first
 * content chunk), E2E (send → last content chunk) and the send instant on the client's clock.
 */
export async function reportClientFigures(host: LoadHost, records: readonly RequestRecord[]): Promise<void> {
  for (const r of records.filter(isOk))
    if (r.seen.requestId && r.seen.chunkAts.length > 0)
      await host.reportClient(r.seen.requestId, {
        clientTtftMs: r.seen.chunkAts[0]! - r.seen.sentAt,
        clientE2eMs: r.seen.chunkAts.at(-1)! - r.seen.sentAt,
        sentAt: r.seen.sentAt,
      });
}

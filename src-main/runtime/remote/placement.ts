import { PART_TOLERANCE_MS } from '../../telemetry/timeline/check';
import type { ClientStamps } from './observation';

/** How server stamps are put on the client's clock, in words (the sidecar and docs say this). */
export const PLACEMENT_METHOD =
  "midpoint: the server's reported span (its arrival → its first token) is placed in the middle of the window the client's stamps allow — arrival no earlier than the send, no later than the response headers, and the first token no later than the first content received — so the uncertainty is half that window";

/** Server stamps placed on the client's clock, or why they cannot be. */
export type Placement =
  | {
      isPlaced: true;
      /** The server's arrival, on the client's clock (ms). */
      arrivalAt: number;
      /** ± this many ms: any arrival within it fits the client's stamps equally well. */
      uncertaintyMs: number;
    }
  | { isPlaced: false; reason: string };

/**
 * Places a server span of `serverSpanMs` (arrival → first token, the server's own duration)
 * on the client's clock. Only durations cross clocks: the arrival can be anywhere from the
 * send to the earlier of the headers' arrival and (first content − span); the midpoint is
 * used and half the window is the uncertainty. A span longer than the client waited cannot be
 * placed monotonically: the record is flagged, never forced into order.
 */
export function placeServerSpan(stamps: ClientStamps, serverSpanMs: number): Placement {
  const { sentAt, firstContentAt, headersAt } = stamps;
  if (firstContentAt === null) return { isPlaced: false, reason: 'no content arrived' };
  if (!(serverSpanMs >= 0)) return { isPlaced: false, reason: `server span ${serverSpanMs} ms` };
  const latest = Math.min(firstContentAt - serverSpanMs, headersAt ?? Infinity);
  const windowMs = latest - sentAt;
  if (windowMs < -PART_TOLERANCE_MS)
    return {
      isPlaced: false,
      reason: `the server reports ${serverSpanMs.toFixed(3)} ms before its first token, but the client saw it ${(firstContentAt - sentAt).toFixed(3)} ms after sending${headersAt !== null && headersAt < firstContentAt - serverSpanMs ? ' (headers came earlier still)' : ''}: the stamps cannot be placed in order`,
    };
  const halfMs = Math.max(0, windowMs) / 2;
  return { isPlaced: true, arrivalAt: sentAt + halfMs, uncertaintyMs: halfMs };
}

import { transportMs } from './derive';

/**
 * How far a client TTFT may read below the server's before it counts as broken (ms). The two
 * are durations on different clocks; Chromium coarsens `performance.now()` to 100 µs with
 * jitter, so a true client figure can read a little low, never by a millisecond.
 */
export const CLIENT_CLOCK_TOLERANCE_MS = 1;

/** A client TTFT accepted with its transport (client − server, ms), or refused with the reason. */
export type ClientTtftVerdict =
  { isAccepted: true; transportMs: number } | { isAccepted: false; reason: string };

/**
 * The one gate a client TTFT passes on its way in. The client's first chunk cannot arrive
 * before the server flushed it, so a client figure below the server's is a broken measurement
 * (a client stamping at the wrong moment), refused with the reason, never stored as a
 * negative transport.
 */
export function judgeClientTtft(serverTtftMs: number | null, clientTtftMs: number): ClientTtftVerdict {
  if (!Number.isFinite(clientTtftMs) || clientTtftMs < 0)
    return { isAccepted: false, reason: `client TTFT ${clientTtftMs} ms is not a duration` };
  if (serverTtftMs === null)
    return { isAccepted: false, reason: 'the request never produced a token, so it has no TTFT' };
  const transport = transportMs(clientTtftMs, serverTtftMs)!;
  if (transport < -CLIENT_CLOCK_TOLERANCE_MS)
    return {
      isAccepted: false,
      reason: `broken client measurement: client TTFT ${clientTtftMs.toFixed(3)} ms is below server TTFT ${serverTtftMs.toFixed(3)} ms (the first chunk cannot arrive before it was flushed)`,
    };
  return { isAccepted: true, transportMs: transport };
}

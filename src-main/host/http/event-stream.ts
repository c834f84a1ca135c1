import type { IncomingMessage, ServerResponse } from 'node:http';
import { EVENT_STREAM_LIMITS } from '../../limits';
import type { PushedEvent, ServiceApi } from '../../service/contract';

/** Pacing of one server-sent event stream. */
export interface EventStreamOptions {
  /** Minimum time between two messages: events arriving in between travel in one batch. */
  flushIntervalMs: number;
  /** A comment line this often keeps proxies and idle sockets from closing the stream. */
  keepAliveMs: number;
  /** A client this far behind is cut off (it reconnects) rather than buffered without end. */
  maxBufferedEvents: number;
}

/** At most 20 messages/s, a keep-alive every 15 s, and a generous backlog (limits.ts). */
export const DEFAULT_EVENT_STREAM_OPTIONS: EventStreamOptions = { ...EVENT_STREAM_LIMITS };

/**
 * Serves `GET /api/events`: every pushed event of the service, batched into messages whose
 * data is a JSON array of PushedEvent, at most one message per flush interval. Two things
 * leave at once instead of waiting for the next slot: the first event after a quiet spell,
 * and the first chunk of each request (holding it back would add up to an interval to every
 * client TTFT and show up as `transport`). Returns the stream's cleanup, which also runs when
 * the client goes away.
 */
export function openEventStream(
  req: IncomingMessage,
  res: ServerResponse,
  service: ServiceApi,
  options: EventStreamOptions = DEFAULT_EVENT_STREAM_OPTIONS,
): () => void {
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  res.write('retry: 1000\n: connected\n\n');
  let pending: PushedEvent[] = [];
  let lastFlushAt = -Infinity;
  let flushTimer: NodeJS.Timeout | null = null;
  const flush = () => {
    flushTimer = null;
    lastFlushAt = performance.now();
    const batch = pending;
    pending = [];
    res.write(`data: ${JSON.stringify(batch)}\n\n`);
  };
  const firstChunks = new FirstChunks();
  const unsubscribe = service.subscribe((event) => {
    pending.push(event);
    if (pending.length > options.maxBufferedEvents) return close();
    const isUrgent = firstChunks.isFirst(event);
    if (flushTimer && !isUrgent) return;
    if (flushTimer) clearTimeout(flushTimer);
    const delayMs = isUrgent ? 0 : Math.max(0, lastFlushAt + options.flushIntervalMs - performance.now());
    flushTimer = setTimeout(flush, delayMs);
  });
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), options.keepAliveMs);
  let isClosed = false;
  function close(): void {
    if (isClosed) return;
    isClosed = true;
    unsubscribe();
    clearInterval(keepAlive);
    if (flushTimer) clearTimeout(flushTimer);
    pending = [];
    res.end();
  }
  req.once('close', close);
  res.once('close', close);
  return close;
}

/** Tracks which requests this stream has already sent a chunk of. */
class FirstChunks {
  private readonly started = new Set<string>();

  /** True for a request's first chunk; forgets the request when it is done. */
  isFirst(event: PushedEvent): boolean {
    if (event.name === 'request.done') this.started.delete(event.payload.requestId);
    if (event.name !== 'request.chunk' || this.started.has(event.payload.requestId)) return false;
    if (this.started.size >= 10_000) this.started.clear();
    this.started.add(event.payload.requestId);
    return true;
  }
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { EVENT_STREAM_LIMITS } from '../../limits';
import type { ServiceApi } from '../../service/contract';
import { EventBatcher } from '../event-batcher';

/** Pacing of one server-sent event stream. */
export interface EventStreamOptions {
  /** Minimum time between two messages: events arriving in between travel in one batch (EventBatcher's interval). */
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
 * data is a JSON array of PushedEvent, by the same EventBatcher the desktop window's IPC uses
 * (one policy: at most one message per interval, a request's first chunk at once). Returns
 * the stream's cleanup, which also runs when the client goes away.
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
  const batcher = new EventBatcher({
    intervalMs: options.flushIntervalMs,
    send: (batch) => res.write(`data: ${JSON.stringify(batch)}\n\n`),
  });
  const unsubscribe = service.subscribe((event) => {
    batcher.push(event);
    if (batcher.numPending > options.maxBufferedEvents) close();
  });
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), options.keepAliveMs);
  let isClosed = false;
  function close(): void {
    if (isClosed) return;
    isClosed = true;
    unsubscribe();
    clearInterval(keepAlive);
    batcher.dispose();
    res.end();
  }
  req.once('close', close);
  res.once('close', close);
  return close;
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { EVENT_STREAM_LIMITS } from '../../limits';
import type { ServiceApi } from '../../service/contract/service-api';
import { consoleLog } from '../../telemetry/log/log';
import type { Log } from '../../telemetry/log/log';
import { EventBatcher } from '../event-batcher';

/** Pacing of one server-sent event stream. */
export interface EventStreamOptions {
  /** Minimum time between two messages: events arriving in between travel in one batch (EventBatcher's interval). */
  flushIntervalMs: number;
  /** A comment line this often keeps proxies and idle sockets from closing the stream. */
  keepAliveMs: number;
  /** A client this far behind is cut off (it reconnects) rather than buffered without end. */
  maxBufferedEvents: number;
  /** Bytes written that the client's socket has not taken: past this it is not reading, and is cut off (default: limits.ts). */
  maxUnsentBytes?: number;
}

/** At most 20 messages/s, a keep-alive every 15 s, and a generous backlog (limits.ts). */
export const DEFAULT_EVENT_STREAM_OPTIONS: EventStreamOptions = { ...EVENT_STREAM_LIMITS };

/**
 * Serves `GET /api/events`: every pushed event of the service, batched into messages whose
 * data is a JSON array of PushedEvent, by the same EventBatcher the desktop window's IPC uses
 * (one policy: at most one message per interval, a request's first chunk at once). Returns
 * the stream's cleanup, which also runs when the client goes away.
 *
 * A client that falls behind (more than `maxUnsentBytes` written that its socket has not taken,
 * or `maxBufferedEvents` waiting) is cut off: the log says why, the socket is destroyed so what
 * it held is freed at once (ending it would keep it until the client read), and a browser's
 * EventSource reconnects to a fresh stream.
 */
export function openEventStream(
  req: IncomingMessage,
  res: ServerResponse,
  service: ServiceApi,
  options: EventStreamOptions = DEFAULT_EVENT_STREAM_OPTIONS,
  log: Log = consoleLog,
): () => void {
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  res.write('retry: 1000\n: connected\n\n');
  let isClosed = false;
  const maxUnsentBytes = options.maxUnsentBytes ?? EVENT_STREAM_LIMITS.maxUnsentBytes;
  const write = (text: string) => {
    if (isClosed) return;
    res.write(text);
    // Counts Node's buffer and the socket's: bytes the kernel has not accepted from us yet.
    if (res.writableLength > maxUnsentBytes)
      cutOff(`it fell ${mb(res.writableLength)} behind (it is not reading)`);
  };
  const batcher = new EventBatcher({
    intervalMs: options.flushIntervalMs,
    send: (batch) => write(`data: ${JSON.stringify(batch)}\n\n`),
  });
  const unsubscribe = service.subscribe((event) => {
    batcher.push(event);
    if (batcher.numPending > options.maxBufferedEvents)
      cutOff(`${batcher.numPending} events were waiting for it`);
  });
  const keepAlive = setInterval(() => write(': keep-alive\n\n'), options.keepAliveMs);
  function cutOff(reason: string): void {
    if (isClosed) return;
    log.warn(
      'events',
      `an /api/events client was cut off: ${reason}; it gets a fresh stream if it reconnects`,
    );
    close();
    res.destroy();
  }
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

function mb(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MB`;
}

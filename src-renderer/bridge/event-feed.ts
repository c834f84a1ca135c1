import type { ConnectionState } from './bridge';
import { SseParser } from './sse-parser';

/** Where and how to read a server-sent event stream. */
export interface EventFeedOptions {
  url: string;
  fetch: typeof fetch;
  onMessage(data: string): void;
  onState(state: ConnectionState): void;
  /** Wait before reconnecting when the server did not say (`retry:`). */
  retryMs?: number;
}

/**
 * Reads a server-sent event stream over fetch (so it works the same in a page and in Node
 * tests, and stops cleanly on abort) and reconnects after the server's `retry` delay when the
 * stream ends or fails. Returns stop.
 */
export function openEventFeed(options: EventFeedOptions): () => void {
  const abort = new AbortController();
  const run = async () => {
    let retryMs = options.retryMs ?? 1000;
    let isLost = false;
    while (!abort.signal.aborted) {
      // Once lost, stay lost until a stream opens: a retry that fails at once must not flash
      // the banner away and Send back on every second while the host is down.
      if (!isLost) options.onState('connecting');
      const parser = new SseParser();
      try {
        await readStream(options, parser, abort.signal, () => {
          isLost = false;
          options.onState('open');
        });
      } catch (error) {
        if (abort.signal.aborted) return;
        console.warn('[bridge] event stream failed:', (error as Error).message);
      }
      retryMs = parser.retryMs ?? retryMs;
      if (abort.signal.aborted) return;
      if (!isLost) options.onState('lost');
      isLost = true;
      await sleep(retryMs, abort.signal);
    }
  };
  void run();
  return () => abort.abort();
}

async function readStream(
  options: EventFeedOptions,
  parser: SseParser,
  signal: AbortSignal,
  onOpen: () => void,
): Promise<void> {
  const response = await options.fetch(options.url, { headers: { Accept: 'text/event-stream' }, signal });
  if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
  onOpen();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    for (const data of parser.feed(value)) options.onMessage(data);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

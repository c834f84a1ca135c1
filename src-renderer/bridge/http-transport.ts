import type { MethodInput, MethodName, MethodOutput } from '../../src-main/service/contract/methods';
import type { Result } from '../../src-main/service/contract/result';
import type { Bridge, ConnectionState, EventBatchListener } from './bridge';
import { openEventFeed } from './event-feed';
import { Listeners } from './listeners';
import { failure } from '../../src-main/service/contract/result';
import { validateEvents, validateResult } from './validate';

/** Where the headless host is (same origin in a page) and which fetch to use. */
export interface HttpBridgeOptions {
  baseUrl?: string;
  fetch?: typeof fetch;
}

/**
 * The browser transport: `POST /api/call/<method>` for calls and one `GET /api/events`
 * stream (opened while anyone listens) for pushed events, each message a JSON array.
 */
export function createHttpBridge(options: HttpBridgeOptions = {}): Bridge {
  const baseUrl = options.baseUrl ?? '';
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  let state: ConnectionState = 'connecting';
  const states = new Listeners<[ConnectionState]>();
  let stop: (() => void) | null = null;
  const batches = new Listeners<Parameters<EventBatchListener>>(
    () => {
      stop = openEventFeed({
        url: `${baseUrl}/api/events`,
        fetch: doFetch,
        onMessage: (data) => onMessage(data, batches),
        onState: (next) => states.emit((state = next)),
      });
    },
    () => stop?.(),
  );
  return {
    kind: 'http',
    call: (method, input) => callOverHttp(doFetch, baseUrl, method, input),
    subscribe: (listener) => batches.add(listener),
    onConnection(listener) {
      listener(state);
      return states.add(listener);
    },
    exportUrl: (format, runId) =>
      `${baseUrl}/api/export.${format}${runId ? `?runId=${encodeURIComponent(runId)}` : ''}`,
  };
}

function onMessage(data: string, batches: Listeners<Parameters<EventBatchListener>>): void {
  const receivedAt = performance.now();
  let raw: unknown;
  try {
    raw = JSON.parse(data);
  } catch {
    return console.warn('[bridge] dropped an event message that is not JSON');
  }
  const events = validateEvents(raw);
  if (events.length > 0) batches.emit(events, receivedAt);
}

async function callOverHttp<M extends MethodName>(
  doFetch: typeof fetch,
  baseUrl: string,
  method: M,
  input: MethodInput<M>,
): Promise<Result<MethodOutput<M>>> {
  let response: Response;
  try {
    response = await doFetch(`${baseUrl}/api/call/${method}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(input),
    });
  } catch (error) {
    return failure('unavailable', `cannot reach the First Frame host: ${(error as Error).message}`);
  }
  try {
    return validateResult(method, await response.json());
  } catch {
    return failure('internal', `${method}: HTTP ${response.status} with a body that is not JSON`);
  }
}

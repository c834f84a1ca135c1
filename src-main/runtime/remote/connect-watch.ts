import { subscribe } from 'node:diagnostics_channel';

/** What a call hears about its own request while Node's fetch sends it. */
export interface ConnectWatcher {
  /** Node's fetch created the call's request: it is now connecting (or waiting for a socket). */
  onRequest(): void;
  /** The request's headers went onto a connected socket (TCP and TLS done). */
  onConnected(): void;
}

/** The watcher of the call whose fetch is being started, for that synchronous call only. */
let watcherStarting: ConnectWatcher | null = null;
/** Each request Node's fetch created for a watched call, to its watcher. */
const watcherOfRequest = new WeakMap<object, ConnectWatcher>();
let isSubscribed = false;

/**
 * Runs `send` (a fetch) telling `watcher` when its request is created and when it is on a
 * connected socket, so the app can bound connecting by its own limit (Node's fetch only has its
 * built-in 10 s). Node's fetch (undici) publishes both on diagnostics channels, and creates its
 * request inside the fetch call itself: a request created while `send` runs is this call's, so
 * concurrent calls never mix (no async context is tracked, which would cost every promise of the
 * process). Where the channels are silent, or the request is created later, `onRequest` never
 * comes: a limit armed there never fires wrongly, and Node's own 10 s applies.
 */
export function sendWatchingConnect<T>(watcher: ConnectWatcher, send: () => Promise<T>): Promise<T> {
  subscribeOnce();
  watcherStarting = watcher;
  try {
    return send();
  } finally {
    watcherStarting = null;
  }
}

function subscribeOnce(): void {
  if (isSubscribed) return;
  isSubscribed = true;
  subscribe('undici:request:create', (message) => {
    const watcher = watcherStarting;
    const { request } = message as { request: object };
    if (!watcher) return;
    watcherOfRequest.set(request, watcher);
    watcher.onRequest();
  });
  subscribe('undici:client:sendHeaders', (message) => {
    const { request } = message as { request: object };
    watcherOfRequest.get(request)?.onConnected();
    watcherOfRequest.delete(request);
  });
}

import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';

/** What a call hears about its own request while Node's fetch sends it. */
export interface ConnectWatcher {
  /** Node's fetch created the call's request: it is now connecting (or waiting for a socket). */
  onRequest(): void;
  /** The request's headers went onto a connected socket (TCP and TLS done). */
  onConnected(): void;
}

/** The watcher of the call whose async context is running (the context a fetch was started in). */
const watcherOfContext = new AsyncLocalStorage<ConnectWatcher>();
/** Each request Node's fetch created for a watched call, to its watcher. */
const watcherOfRequest = new WeakMap<object, ConnectWatcher>();
let isSubscribed = false;

/**
 * Runs `send` (a fetch) telling `watcher` when its request is created and when it is on a
 * connected socket, so the app can bound connecting by its own limit (Node's fetch only has its
 * built-in 10 s). Node's fetch (undici) publishes both on diagnostics channels; the call's async
 * context ties each request to the call that made it, so concurrent calls never mix. Where the
 * channels are silent, `onRequest` never comes either: a limit armed there never fires wrongly.
 */
export function sendWatchingConnect<T>(watcher: ConnectWatcher, send: () => Promise<T>): Promise<T> {
  subscribeOnce();
  return watcherOfContext.run(watcher, send);
}

function subscribeOnce(): void {
  if (isSubscribed) return;
  isSubscribed = true;
  subscribe('undici:request:create', (message) => {
    const watcher = watcherOfContext.getStore();
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

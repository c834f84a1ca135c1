import type { PushedEvent } from '../src-main/service/contract/events';
import type { MethodName } from '../src-main/service/contract/methods';
import type { Result } from '../src-main/service/contract/result';
import { failure } from '../src-main/service/contract/result';
import type { FirstFrameApi } from '../src-main/service/contract/window-api';
import { EVENTS_CHANNEL, callChannel } from '../src-main/host/electron/ipc-channels';

// What the preload puts on `window.firstFrame`: one named function per contract method, each
// invoking its own channel, and event batches with unsubscribe. No ipcRenderer, no generic
// send. Type imports only from the contract: the sandboxed bundle carries no zod.

/** The slice of ipcRenderer the API uses (a fake in tests). */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

/** Invokes one method's channel; a failed invoke (no handler yet, main gone) becomes an error value. */
function invokeMethod(ipc: IpcRendererLike, method: MethodName, input: unknown): Promise<Result<unknown>> {
  return ipc.invoke(callChannel(method), input === undefined ? {} : input).then(
    (result) => result as Result<unknown>,
    (error: unknown) =>
      failure('unavailable', `${method}: ${error instanceof Error ? error.message : String(error)}`),
  );
}

/** Builds the API object the preload exposes through contextBridge, one function per method name. */
export function createFirstFrameApi(
  ipc: IpcRendererLike,
  platform: string,
  methodNames: readonly MethodName[],
): FirstFrameApi {
  const methods = Object.fromEntries(
    methodNames.map((method) => [method, (input?: unknown) => invokeMethod(ipc, method, input)]),
  ) as unknown as FirstFrameApi['methods'];
  return {
    methods,
    onEvents(listener) {
      if (typeof listener !== 'function') throw new TypeError('onEvents needs a function');
      // The IPC event object (sender, ports) never reaches the page: only the batch does.
      const relay = (_event: unknown, batch: unknown): void => {
        if (Array.isArray(batch)) listener(batch as PushedEvent[]);
      };
      ipc.on(EVENTS_CHANNEL, relay);
      return () => void ipc.removeListener(EVENTS_CHANNEL, relay);
    },
    platform,
  };
}

import type { Bridge } from './bridge';
import { Listeners } from './listeners';
import type { FirstFrameApi } from '../../src-main/service/contract/window-api';
import { failure } from '../../src-main/service/contract/result';
import { validateEvents, validateResult } from './validate';

/**
 * The Electron transport: calls the preload's named functions and listens to its event
 * batches. The main process validates too; this side re-checks everything it receives, since
 * the renderer trusts nothing that crosses a boundary.
 */
export function createIpcBridge(api: FirstFrameApi): Bridge {
  let unsubscribe: (() => void) | null = null;
  const batches = new Listeners<Parameters<Parameters<Bridge['subscribe']>[0]>>(
    () => {
      unsubscribe = api.onEvents((raw) => {
        const receivedAt = performance.now();
        const events = validateEvents(raw);
        if (events.length > 0) batches.emit(events, receivedAt);
      });
    },
    () => unsubscribe?.(),
  );
  return {
    kind: 'ipc',
    async call(method, input) {
      const fn = api.methods[method] as ((input: unknown) => Promise<unknown>) | undefined;
      if (typeof fn !== 'function') return failure('not_found', `the preload has no method ${method}`);
      try {
        return validateResult(method, await fn(input));
      } catch (error) {
        return failure('unavailable', `${method} failed in IPC: ${(error as Error).message}`);
      }
    },
    subscribe: (listener) => batches.add(listener),
    onConnection(listener) {
      listener('open');
      return () => {};
    },
    exportUrl: () => null,
  };
}

import type { PushedEvent } from '../../service/contract/events';
import type { ServiceApi } from '../../service/contract/service-api';
import { EventBatcher, type BatcherOptions } from '../event-batcher';
import { EVENTS_CHANNEL } from './ipc-channels';

// Forwards the service's pushed events to one window: subscribe, batch and throttle
// (event-batcher.ts), send each batch on the one events channel while the page is alive.

/** The slice of Electron's WebContents the forwarder uses (a fake in tests). */
export interface EventTarget {
  isDestroyed(): boolean;
  send(channel: string, batch: PushedEvent[]): void;
}

/** Batching knobs passed through to EventBatcher (interval, cap, clock). */
export type ForwarderOptions = Omit<BatcherOptions, 'send'> & { log?: (message: string) => void };

/**
 * Starts forwarding `service` events to `target`; returns stop (unsubscribes, drops what is
 * pending). Batches for a destroyed page are discarded; a failing send is logged, never thrown.
 */
export function forwardEvents(
  service: ServiceApi,
  target: EventTarget,
  options: ForwarderOptions = {},
): () => void {
  const log = options.log ?? ((message: string) => console.warn(message));
  const batcher = new EventBatcher({
    ...options,
    send(batch) {
      if (target.isDestroyed()) return;
      try {
        target.send(EVENTS_CHANNEL, batch);
      } catch (error) {
        log(`event batch not sent: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
  });
  const unsubscribe = service.subscribe((event) => batcher.push(event));
  return () => {
    unsubscribe();
    batcher.dispose();
  };
}

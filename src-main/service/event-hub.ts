import type { Log } from '../telemetry/log/log';
import { consoleLog, reasonOf } from '../telemetry/log/log';
import type { EventName, EventPayload, PushedEvent } from './contract/events';

/** Fan-out of pushed events to every subscribed transport, synchronously, in emit order. */
export class EventHub {
  private readonly listeners = new Set<(event: PushedEvent) => void>();

  /** `log` hears a listener that throws; it must not emit on this hub (that could loop). */
  constructor(private readonly log: Log = consoleLog) {}

  /** Sends an event to every listener now; a throwing listener never stops the others. */
  emit<E extends EventName>(name: E, payload: EventPayload<E>): void {
    const event = { name, payload } as PushedEvent;
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        // A broken transport must not break serving or the other transports: log it and go on.
        this.log.warn('events', `a ${name} listener failed: ${reasonOf(error)}`);
      }
    }
  }

  subscribe(listener: (event: PushedEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

import type { EventName, EventPayload, PushedEvent } from './contract';

/** Fan-out of pushed events to every subscribed transport, synchronously, in emit order. */
export class EventHub {
  private readonly listeners = new Set<(event: PushedEvent) => void>();

  /** Sends an event to every listener now; a throwing listener never stops the others. */
  emit<E extends EventName>(name: E, payload: EventPayload<E>): void {
    const event = { name, payload } as PushedEvent;
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A broken transport must not break serving; it is that transport's job to report.
      }
    }
  }

  subscribe(listener: (event: PushedEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

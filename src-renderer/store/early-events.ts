import type { RequestEvent } from './chat-events';

/**
 * Events that arrived before the answer they belong to knew its request id: over SSE, a first
 * chunk can beat the `chat.send` reply. Held only while a send is in flight (events of other
 * clients' requests are dropped otherwise) and handed over when the reply names the request.
 */
export class EarlyEvents {
  private numSending = 0;
  private held: { event: RequestEvent; receivedAt: number }[] = [];

  /** A send started: start holding unmatched events. */
  begin(): void {
    this.numSending++;
  }

  /** A send ended: its request's held events, in arrival order; the rest are dropped when idle. */
  end(requestId: string | null): { event: RequestEvent; receivedAt: number }[] {
    this.numSending = Math.max(0, this.numSending - 1);
    const mine = this.held.filter((h) => h.event.payload.requestId === requestId);
    this.held = this.numSending === 0 ? [] : this.held.filter((h) => h.event.payload.requestId !== requestId);
    return mine;
  }

  /** Keeps an unmatched event while a send is in flight (bounded). */
  hold(event: RequestEvent, receivedAt: number): void {
    if (this.numSending === 0 || this.held.length >= 10_000) return;
    this.held.push({ event, receivedAt });
  }
}

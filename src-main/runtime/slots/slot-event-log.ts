import type { Clock } from '../../telemetry/clock';
import { reasonOf } from '../../telemetry/log/log';
import type { Log } from '../../telemetry/log/log';
import type { Slot } from './slot';
import { canTransition } from './slot-types';
import type { SlotCause, SlotEvent, SlotStatus } from './slot-types';

/** Slot events kept in memory for the history query (the store keeps them all). */
const MAX_EVENTS = 10_000;

/**
 * The slot state machine's one door: moves a slot along a legal transition and records it
 * as an event with its cause, kept for the history query and told to every listener. Only the
 * SlotRegistry calls `transition`.
 */
export class SlotEventLog {
  private readonly events: SlotEvent[] = [];
  private readonly listeners = new Set<(event: SlotEvent) => void>();

  constructor(
    private readonly clock: Clock,
    private readonly log: Log,
  ) {}

  /** Slot events, oldest first, optionally from a monotonic instant on. */
  history(sinceAt = -Infinity): SlotEvent[] {
    return this.events.filter((e) => e.at >= sinceAt);
  }

  /** Subscribes to slot events; returns the unsubscribe function. */
  onEvent(listener: (event: SlotEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Moves the slot to `to` (throws on an illegal transition) and tells every listener. */
  transition(slot: Slot, to: SlotStatus, cause: SlotCause, reason: string | null): void {
    const from = slot.status;
    if (!canTransition(from, to))
      throw new Error(`slot ${slot.slotId}: ${from} → ${to} is not a slot transition`);
    slot.status = to;
    if (to !== 'failed') slot.failureReason = null;
    const event: SlotEvent = {
      slotId: slot.slotId,
      modelId: slot.model.modelId,
      fromStatus: from,
      toStatus: to,
      cause,
      reason,
      at: this.clock.now(),
      atWallMs: this.clock.wallNow(),
    };
    this.events.push(event);
    if (this.events.length > MAX_EVENTS) this.events.shift();
    // Every listener hears every event: one that throws is logged, never allowed to keep the
    // event from the rest (the store and the pushed event stream come after the engine).
    for (const listener of this.listeners)
      try {
        listener(event);
      } catch (error) {
        this.log.warn(
          'slots',
          `a listener of ${slot.slotId}'s ${from} → ${to} event threw: ${reasonOf(error)}`,
        );
      }
  }
}

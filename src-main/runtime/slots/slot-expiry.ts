import type { Clock } from '../../telemetry/clock';
import type { Slot } from './slot';

/**
 * Keep-alive countdowns of idle resident slots, one timer per slot. When a countdown ends on
 * a slot still idle, `expire` is called with the reason (the registry evicts, cause `ttl`).
 */
export class SlotExpiry {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly clock: Clock,
    private readonly expire: (slot: Slot, reason: string) => void,
  ) {}

  /** (Re)starts the slot's countdown from its keep-alive; none unless resident (idle: no seat taken). */
  schedule(slot: Slot): void {
    this.clear(slot);
    if (slot.status !== 'resident') return;
    const delayMs =
      slot.keepAlive.kind === 'ms' ? slot.keepAlive.ms : slot.keepAlive.kind === 'forever' ? null : 0;
    if (delayMs === null) return;
    slot.expiresAt = this.clock.now() + delayMs;
    const reason =
      slot.keepAlive.kind === 'unload-after-request' ? 'unload after request' : 'keep-alive expired';
    this.arm(slot, delayMs, reason);
  }

  /** Stops the slot's countdown (it is in use, unloading or retiring). */
  clear(slot: Slot): void {
    const timer = this.timers.get(slot.slotId);
    if (timer) clearTimeout(timer);
    this.timers.delete(slot.slotId);
    slot.expiresAt = null;
  }

  /** Expires when the countdown ends; a step still finishing (e.g. freeing K/V) postpones it briefly. */
  private arm(slot: Slot, delayMs: number, reason: string): void {
    const timer = setTimeout(() => {
      this.timers.delete(slot.slotId);
      if (slot.status !== 'resident') return;
      if (slot.runner?.isBusy) return this.arm(slot, 5, reason);
      this.expire(slot, reason);
    }, delayMs);
    timer.unref();
    this.timers.set(slot.slotId, timer);
  }
}

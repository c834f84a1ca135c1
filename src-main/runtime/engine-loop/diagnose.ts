import type { Blocker, SlotLoadCause } from '../../telemetry/timeline/diagnosis';
import type { SlotRegistry } from '../slots/slot-registry';
import type { Slot } from '../slots/slot';
import type { Sequence } from '../scheduler/sequence';

/** How many blockers a timeline names (it counts them all). */
const MAX_BLOCKERS = 8;

/**
 * Why a request finds its slot cold, from the slot's own history: never loaded, still loading
 * (by a prefetch or another request), or unloaded earlier by its keep-alive, the memory budget,
 * the user, or a failure. Recorded at routing, when the cold start is decided.
 */
export function slotLoadCause(registry: SlotRegistry, slot: Slot | undefined): SlotLoadCause {
  const history = slot ? registry.history().filter((e) => e.slotId === slot.slotId) : [];
  const last = history.at(-1);
  if (!slot || !last) return { kind: 'first-load', reason: null, unloadedAtWallMs: null, keepAliveMs: null };
  if (slot.status === 'prefetching' && (last.cause === 'prefetch' || last.cause === 'request'))
    return { kind: last.cause, reason: last.reason, unloadedAtWallMs: null, keepAliveMs: null };
  const unloaded = history.findLast((e) => e.toStatus === 'empty' || e.toStatus === 'failed');
  if (!unloaded) return { kind: 'first-load', reason: null, unloadedAtWallMs: null, keepAliveMs: null };
  const cause = unloaded.toStatus === 'failed' ? 'error' : unloaded.cause;
  return {
    kind: cause,
    reason: unloaded.reason,
    unloadedAtWallMs: unloaded.atWallMs,
    keepAliveMs: cause === 'ttl' && slot.keepAlive.kind === 'ms' ? slot.keepAlive.ms : null,
  };
}

/** The requests a newly queued one waits behind: those holding the slot's seats, then those ahead of it. */
export function blockersOf(
  running: readonly Sequence[],
  ahead: readonly Sequence[],
): { list: Blocker[]; total: number } {
  const all = [
    ...running.map((seq) => ({ seq, isRunning: true })),
    ...ahead.map((seq) => ({ seq, isRunning: false })),
  ];
  return {
    list: all.slice(0, MAX_BLOCKERS).map(({ seq, isRunning }) => ({
      requestId: seq.request.requestId,
      conversationId: seq.request.conversationId ?? null,
      isRunning,
    })),
    total: all.length,
  };
}

import type { LifeState, PartsMs, Transition, TtftPart } from './schema';
import { zeroParts } from './schema';

/**
 * The one place where intervals are derived from recorded transitions (vLLM v1 style:
 * events recorded at the source, every interval computed here). Each TTFT part is the time
 * spent in its state before the first chunk was flushed:
 *   inbox         arrived             → the scheduler took it from the inbox
 *   route         taken               → requirements resolved and a slot chosen
 *   slotLoad      slot chosen         → the slot is resident (0 on the warm path)
 *   queue         slot resident       → a seat and K/V budget were granted
 *   requeue       preempted           → admitted again
 *   lostPrefill   admitted (attempt)  → preempted: activation+lookup+prefill of an attempt that was thrown away
 *   activation    admitted            → the slot's executor picked the sequence up (lock wait included)
 *   contextLookup executor took it    → cached past K/V assembled from context pages
 *   prefill       past assembled      → first-token logits exist
 *   emit          logits exist        → first chunk flushed to the transport
 */
export interface DerivedParts {
  parts: PartsMs;
  /** Time before the first token that no recorded state explains (ms, ≥ 0 when sound). */
  unattributedMs: number;
  /** arrived → first chunk flushed, or null when no token was ever flushed. */
  ttftMs: number | null;
}

const DIRECT_PART: Partial<Record<LifeState, TtftPart>> = {
  inbox: 'inbox',
  route: 'route',
  slotLoad: 'slotLoad',
  queue: 'queue',
  requeue: 'requeue',
};
const ATTEMPT_STATES: ReadonlySet<LifeState> = new Set(['activation', 'contextLookup', 'prefill', 'emit']);

/**
 * Derives the TTFT parts from a life's transitions. Intervals after `firstTokenAt` belong to
 * decode and are ignored; a request that never produced a token gets parts over its whole life.
 */
export function deriveParts(
  arrivedAt: number,
  transitions: readonly Transition[],
  firstTokenAt: number | null,
  finishedAt: number,
): DerivedParts {
  const endAt = firstTokenAt ?? finishedAt;
  const parts = zeroParts();
  let attempt = zeroParts();
  for (let i = 0; i < transitions.length; i++) {
    const current = transitions[i]!;
    const nextAt = i + 1 < transitions.length ? transitions[i + 1]!.at : finishedAt;
    const durationMs = Math.max(0, Math.min(nextAt, endAt) - Math.max(current.at, arrivedAt));
    if (current.at >= endAt) break;
    if (current.state === 'requeue') attempt = moveAttemptToLost(parts, attempt);
    const direct = DIRECT_PART[current.state];
    if (direct) parts[direct] += durationMs;
    else if (ATTEMPT_STATES.has(current.state)) attempt[current.state as TtftPart] += durationMs;
  }
  for (const state of ATTEMPT_STATES) parts[state as TtftPart] += attempt[state as TtftPart];
  const totalMs = endAt - arrivedAt;
  const attributedMs = Object.values(parts).reduce((sum, ms) => sum + ms, 0);
  return {
    parts,
    unattributedMs: totalMs - attributedMs,
    ttftMs: firstTokenAt === null ? null : firstTokenAt - arrivedAt,
  };
}

/** An attempt that ended in preemption before the first token: all its work was lost. */
function moveAttemptToLost(parts: PartsMs, attempt: PartsMs): PartsMs {
  for (const state of ATTEMPT_STATES) parts.lostPrefill += attempt[state as TtftPart];
  return zeroParts();
}

/** Gaps between consecutive token flushes (ms); the first gap follows the first token. */
export function deriveInterTokenGaps(tokenAts: readonly number[]): number[] {
  const gaps: number[] = [];
  for (let i = 1; i < tokenAts.length; i++) gaps.push(tokenAts[i]! - tokenAts[i - 1]!);
  return gaps;
}

/**
 * Client TTFT minus server TTFT: socket, IPC, serialisation and rendering (ms), or null when
 * either is unknown. The only place transport is computed; judgeClientTtft refuses a client
 * figure that would make it negative.
 */
export function transportMs(clientTtftMs: number | null, serverTtftMs: number | null): number | null {
  return clientTtftMs === null || serverTtftMs === null ? null : clientTtftMs - serverTtftMs;
}

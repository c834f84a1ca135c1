import type { DiskReadFact } from './diagnosis';
import type { LifeState, PartsMs, Transition, TtftPart } from './schema';
import { ATTEMPT_STATES, zeroParts } from './schema';

/**
 * The one place where intervals are derived from recorded transitions (vLLM v1 style:
 * events recorded at the source, every interval computed here). Each TTFT part is the time
 * spent in its state before the first chunk was flushed, from the stamp that began it to the
 * stamp that ended it (`endAt` where its end is stamped on its own, else the next state's
 * start). Who stamps each end:
 *   inbox         arrived (transport)        → the loop took it from the inbox (main)
 *   route         taken (main)               → requirements resolved, slot chosen (main, own stamp)
 *   slotLoad      slot chosen (main)         → the load resolved (main, own stamp; 0 when warm)
 *   queue         slot resident (main)       → a seat and K/V budget were granted (main)
 *     (diskRead   the disk read began (main)   → its pages were read back (main): inside queue,
 *                 cut out of it only where a bar draws it, see deriveBarParts)
 *   requeue       preempted (main)           → admitted again (main)
 *   lostPrefill   admitted (attempt)         → preempted: activation+lookup+prefill of an attempt thrown away
 *   activation    admitted (main)            → the slot's worker took the job (worker, own stamp; lock wait included)
 *   contextLookup the worker began the chunk → cached past K/V assembled (worker)
 *   prefill       past assembled (worker)    → first-token logits exist (worker)
 *   emit          logits exist (worker)      → first chunk flushed to the transport (main)
 * Where an end is stamped on its own, the time until the next state begins (a promise or
 * thread hop, a page copy) is nobody's part: it is `unattributedMs`, and checkTimeline
 * refuses parts that overlap instead.
 */
export interface DerivedParts {
  parts: PartsMs;
  /** Time before the first token that no part explains (ms): gaps between a state's own end and the next start. */
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
  const lifeEndAt = firstTokenAt ?? finishedAt;
  const parts = zeroParts();
  let attempt = zeroParts();
  for (let i = 0; i < transitions.length; i++) {
    const current = transitions[i]!;
    if (current.at >= lifeEndAt) break;
    const nextAt = i + 1 < transitions.length ? transitions[i + 1]!.at : finishedAt;
    const endAt = Math.min(current.endAt ?? nextAt, lifeEndAt);
    // Never clamped: stamps out of order make a negative part, which checkRecorded refuses.
    const durationMs = endAt - Math.max(current.at, arrivedAt);
    if (current.state === 'requeue') attempt = moveAttemptToLost(parts, attempt);
    const direct = DIRECT_PART[current.state];
    if (direct) parts[direct] += durationMs;
    else if (isAttemptState(current.state)) attempt[current.state] += durationMs;
  }
  for (const state of ATTEMPT_STATES) parts[state] += attempt[state];
  const totalMs = lifeEndAt - arrivedAt;
  const attributedMs = Object.values(parts).reduce((sum, ms) => sum + ms, 0);
  return {
    parts,
    unattributedMs: totalMs - attributedMs,
    ttftMs: firstTokenAt === null ? null : firstTokenAt - arrivedAt,
  };
}

/**
 * The TTFT parts as a bar draws them: `diskRead` (ms reading remembered context back from disk)
 * is its own part, cut from `queue`, where it happens: request-intake starts the read after the
 * request enters the queue and admits it when the read ends, so the read lies inside the queue
 * interval and `queue` here is the rest of the wait. The parts still sum to the same TTFT.
 * Never clamped: a read longer than the queue makes `queue` negative, which shows the bug.
 */
export type BarPartsMs = PartsMs & { diskRead: number };

/** See BarPartsMs: `diskRead` is `diagnosis.diskRead.readMs` (0 when nothing was read from disk). */
export function deriveBarParts(parts: PartsMs, diskRead: DiskReadFact | null | undefined): BarPartsMs {
  const diskReadMs = diskRead?.readMs ?? 0;
  return { ...parts, queue: parts.queue - diskReadMs, diskRead: diskReadMs };
}

/** An attempt that ended in preemption before the first token: all its work was lost. */
function moveAttemptToLost(parts: PartsMs, attempt: PartsMs): PartsMs {
  for (const state of ATTEMPT_STATES) parts.lostPrefill += attempt[state];
  return zeroParts();
}

function isAttemptState(state: LifeState): state is (typeof ATTEMPT_STATES)[number] {
  return (ATTEMPT_STATES as readonly LifeState[]).includes(state);
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

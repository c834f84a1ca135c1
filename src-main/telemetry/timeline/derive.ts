import { PART_TOLERANCE_MS } from './check';
import type { DiskReadFact } from './diagnosis';
import { TTFT_PARTS } from './parts';
import type { ClientStamps, RemoteFacts } from './remote-facts';
import type { LifeState, PartsMs, Timeline, Transition, TtftPart } from './schema';
import { ATTEMPT_STATES, LIFE_STATES, zeroParts } from './schema';

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
 * refuses parts that overlap instead. A remote engine's timeline is derived here too, from
 * the client's stamps and the server's reported durations (`deriveRemote`).
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
 * The inter-token gaps (ms) measured per token at its source: between the stamps where each
 * token was produced (its worker sampled it) when every token has one, else between flushes.
 */
export function deriveItl(producedAts: readonly number[], flushedAts: readonly number[]): number[] {
  return deriveInterTokenGaps(producedAts.length === flushedAts.length ? producedAts : flushedAts);
}

/**
 * Client TTFT minus server TTFT: socket, IPC, serialisation and rendering (ms), or null when
 * either is unknown. The only place transport is computed; judgeClientTtft refuses a client
 * figure that would make it negative.
 */
export function transportMs(clientTtftMs: number | null, serverTtftMs: number | null): number | null {
  return clientTtftMs === null || serverTtftMs === null ? null : clientTtftMs - serverTtftMs;
}

/**
 * What a server reported of one request before its first token, on its own clock (ms): the
 * parts it measured (absent when not reported, never zero-filled) and its own TTFT if it has one.
 */
export interface ServerSpanReport {
  parts: Partial<Record<TtftPart, number>>;
  ttftMs: number | null;
}

/**
 * The server's span before its first token (ms): its own TTFT when it reports one, else the
 * sum of the parts it reports (0 when it reports none).
 */
export function deriveServerSpanMs(report: ServerSpanReport): number {
  return report.ttftMs ?? Object.values(report.parts).reduce((sum, ms) => sum + ms, 0);
}

/** How server stamps are put on the client's clock, in words (the sidecar and docs say this). */
export const PLACEMENT_METHOD =
  "midpoint: the server's reported span (its arrival → its first token) is placed in the middle of the window the client's stamps allow — arrival no earlier than the send, no later than the response headers, and the first token no later than the first content received — so the uncertainty is half that window";

/** Server stamps placed on the client's clock, or why they cannot be. */
export type Placement =
  | {
      isPlaced: true;
      /** The server's arrival, on the client's clock (ms). */
      arrivalAt: number;
      /** ± this many ms: any arrival within it fits the client's stamps equally well. */
      uncertaintyMs: number;
    }
  | { isPlaced: false; reason: string };

/**
 * Places a server span of `serverSpanMs` (arrival → first token, the server's own duration)
 * on the client's clock. Only durations cross clocks: the arrival can be anywhere from the
 * send to the earlier of the headers' arrival and (first content − span); the midpoint is
 * used and half the window is the uncertainty. A span longer than the client waited cannot be
 * placed monotonically: the record is flagged, never forced into order.
 */
export function placeServerSpan(stamps: ClientStamps, serverSpanMs: number): Placement {
  const { sentAt, firstContentAt, headersAt } = stamps;
  if (firstContentAt === null) return { isPlaced: false, reason: 'no content arrived' };
  if (!(serverSpanMs >= 0)) return { isPlaced: false, reason: `server span ${serverSpanMs} ms` };
  const latest = Math.min(firstContentAt - serverSpanMs, headersAt ?? Infinity);
  const windowMs = latest - sentAt;
  if (windowMs < -PART_TOLERANCE_MS)
    return {
      isPlaced: false,
      reason: `the server reports ${serverSpanMs.toFixed(3)} ms before its first token, but the client saw it ${(firstContentAt - sentAt).toFixed(3)} ms after sending${headersAt !== null && headersAt < firstContentAt - serverSpanMs ? ' (headers came earlier still)' : ''}: the stamps cannot be placed in order`,
    };
  const halfMs = Math.max(0, windowMs) / 2;
  return { isPlaced: true, arrivalAt: sentAt + halfMs, uncertaintyMs: halfMs };
}

/** A remote timeline's client stamps and placement as durations from the send (see RemoteFacts). */
export type RemoteStampFacts = Pick<
  RemoteFacts,
  | 'headersMs'
  | 'firstByteMs'
  | 'firstContentMs'
  | 'lastChunkMs'
  | 'placedArrivalMs'
  | 'placementUncertaintyMs'
  | 'placementProblem'
>;

/**
 * A remote request's intervals at the client boundary, on this process's clock (ms), from the
 * stamps the remote engine took and the durations the server reported:
 *   ttft, clientTtft  sent → first content received (null when none arrived; the client is us)
 *   e2e               sent → the stream ended (closed, failed or cancelled)
 *   clientE2e         sent → the last content received (deriveClientFigures; no networkIn:
 *                     the server's arrival is on its own clock)
 *   itl               a content event → the next one
 *   headers, firstByte, firstContent, lastChunk   sent → that stamp (null when not seen)
 *   placedArrival     sent → the server's arrival placed on this clock (placeServerSpan)
 *   each reported part  its server-measured duration, laid end to end from the placed arrival
 *                     (a transition each, decode at the first content); 0 when not placed
 *   unattributed      ttft (e2e when no content came) − the parts: network both ways and
 *                     unreported server work; negative (checkRecorded refuses) when the
 *                     parts add up to more than the client waited
 */
export interface DerivedRemote extends DerivedParts, ClientFiguresMs {
  e2eMs: number;
  itlMs: number[];
  transitions: Transition[];
  stampFacts: RemoteStampFacts;
}

/** See DerivedRemote: the one place a remote timeline's intervals are computed. */
export function deriveRemote(
  stamps: ClientStamps,
  contentAts: readonly number[],
  report: ServerSpanReport,
): DerivedRemote {
  const { sentAt, firstContentAt, endedAt } = stamps;
  const placement = firstContentAt === null ? null : placeServerSpan(stamps, deriveServerSpanMs(report));
  const parts = zeroParts();
  if (placement?.isPlaced)
    for (const [part, ms] of Object.entries(report.parts)) parts[part as TtftPart] = ms;
  const attributedMs = TTFT_PARTS.reduce((sum, p) => sum + parts[p], 0);
  const ttftMs = firstContentAt === null ? null : firstContentAt - sentAt;
  // The client is this process, but the server's arrival is on another clock: no network split.
  const client = deriveClientFigures(
    { sentAt, firstContentAt, lastContentAt: contentAts.at(-1) ?? null },
    null,
  );
  const since = (at: number | null) => (at === null ? null : at - sentAt);
  return {
    parts,
    unattributedMs: (firstContentAt ?? endedAt) - sentAt - attributedMs,
    ttftMs,
    ...client,
    e2eMs: endedAt - sentAt,
    itlMs: deriveInterTokenGaps(contentAts),
    transitions: placement?.isPlaced ? placedTransitions(placement.arrivalAt, report, firstContentAt!) : [],
    stampFacts: {
      headersMs: since(stamps.headersAt),
      firstByteMs: since(stamps.firstByteAt),
      firstContentMs: since(firstContentAt),
      lastChunkMs: since(stamps.lastChunkAt),
      placedArrivalMs: placement?.isPlaced ? placement.arrivalAt - sentAt : null,
      placementUncertaintyMs: placement?.isPlaced ? placement.uncertaintyMs : null,
      placementProblem: placement && !placement.isPlaced ? placement.reason : null,
    },
  };
}

/** The reported states placed one after another from the placed arrival, then decode. */
function placedTransitions(
  arrivalAt: number,
  report: ServerSpanReport,
  firstContentAt: number,
): Transition[] {
  const transitions: Transition[] = [];
  let at = arrivalAt;
  for (const part of TTFT_PARTS) {
    const ms = report.parts[part];
    if (ms === undefined) continue;
    // lostPrefill is derived from preempted attempts: it has no state of its own to enter.
    if ((LIFE_STATES as readonly string[]).includes(part)) transitions.push({ state: part as LifeState, at });
    at += ms;
  }
  transitions.push({ state: 'decode', at: firstContentAt });
  return transitions;
}

/** What a client stamped of one request on its own clock (ms); the content stamps are null when none arrived. */
export interface ClientSeenAt {
  sentAt: number;
  firstContentAt: number | null;
  lastContentAt: number | null;
}

/** A client's figures of one request (ms), as a timeline carries them. */
export type ClientFiguresMs = Pick<Timeline, 'clientTtftMs' | 'clientE2eMs' | 'networkInMs'>;

/**
 * A client's figures from its own stamps:
 *   clientTtft  sent → first content received (null when none arrived)
 *   clientE2e   sent → last content received (null when none arrived)
 *   networkIn   sent → the server's arrival, only when that arrival is stamped on the client's
 *               clock (a client in this process, an aligned trace); null otherwise
 */
export function deriveClientFigures(seen: ClientSeenAt, serverArrivedAt: number | null): ClientFiguresMs {
  const since = (at: number | null) => (at === null ? null : at - seen.sentAt);
  return {
    clientTtftMs: since(seen.firstContentAt),
    clientE2eMs: since(seen.lastContentAt),
    networkInMs: since(serverArrivedAt),
  };
}

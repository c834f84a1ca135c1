import type { Timeline } from './schema';
import { TTFT_PARTS } from './schema';

/** Allowed rounding per part when parts are summed against TTFT (ms). */
export const PART_TOLERANCE_MS = 0.001;

/** A timeline that could not have happened: stamps out of order, negative parts, a sum that does not close. */
export class TimelineBroken extends Error {
  constructor(
    readonly requestId: string,
    readonly reason: string,
  ) {
    super(`timeline ${requestId} is broken: ${reason}`);
    this.name = 'TimelineBroken';
  }
}

/**
 * Asserts a timeline record's invariants and throws `TimelineBroken` on the first violation:
 * everything `checkRecorded` checks, plus that its stored totals agree with its stamps (e2e =
 * finish − arrival, TTFT = first token − arrival) and that parts + unattributed = TTFT. For a
 * timeline read from outside (an imported trace, a stored row), where every field was written
 * independently; a timeline derived in this process is built from its stamps, so those
 * equalities hold by construction and only `checkRecorded` can fail for it. Returns the timeline.
 */
export function checkTimeline(t: Timeline): Timeline {
  const fail = failerOf(t);
  checkRecorded(t);
  checkTotals(t, fail);
  return t;
}

/**
 * What can go wrong in a timeline derived here from its stamps: stamps out of order (a state's
 * own end before its start or after the next state's start, stamps from a worker's clock), a
 * negative part (parts are never clamped, so this fires), parts adding up to more than TTFT
 * (unattributed < 0: independently stamped parts overlap), inconsistent counts. Returns the
 * timeline for chaining.
 */
export function checkRecorded(t: Timeline): Timeline {
  const fail = failerOf(t);
  checkStamps(t, fail);
  checkParts(t, fail);
  checkCounts(t, fail);
  return t;
}

/**
 * The one door a timeline derived in this process leaves by: checked (checkRecorded), then
 * frozen with what it owns (parts, transitions, gaps, diagnosis and remote facts; not what
 * those hold by reference). A finished timeline never changes: what is learnt of it later, a
 * client's figures, is a record of its own (report/window.ts). Returns the same timeline.
 */
export function sealRecorded(t: Timeline): Timeline {
  checkRecorded(t);
  for (const transition of t.transitions) Object.freeze(transition);
  for (const owned of [t.parts, t.transitions, t.itlMs, t.diagnosis, t.remote])
    if (owned) Object.freeze(owned);
  return Object.freeze(t);
}

function failerOf(t: Timeline): (reason: string) => never {
  return (reason) => {
    throw new TimelineBroken(t.requestId, reason);
  };
}

function checkStamps(t: Timeline, fail: (reason: string) => never): void {
  if (t.finishedAt < t.arrivedAt) fail('finished before it arrived');
  let previousAt = t.arrivedAt;
  for (const { state, at, endAt } of t.transitions) {
    if (at < previousAt) fail(`entered ${state} at ${at}, before the previous stamp ${previousAt}`);
    if (endAt !== undefined && endAt < at) fail(`${state} ended at ${endAt}, before it began at ${at}`);
    previousAt = endAt ?? at;
  }
  if (previousAt > t.finishedAt) fail('a state was entered after the finish');
  if (t.firstTokenAt !== null && (t.firstTokenAt < t.arrivedAt || t.firstTokenAt > t.finishedAt))
    fail('first token outside the life');
}

function checkParts(t: Timeline, fail: (reason: string) => never): void {
  for (const part of TTFT_PARTS) {
    const ms = t.parts[part];
    if (!Number.isFinite(ms) || ms < -PART_TOLERANCE_MS) fail(`part ${part} is ${ms} ms`);
  }
  if (!Number.isFinite(t.unattributedMs) || t.unattributedMs < -PART_TOLERANCE_MS)
    fail(`unattributed is ${t.unattributedMs} ms: the parts overlap`);
}

/** A record's stored totals against its own stamps and parts (independent fields there). */
function checkTotals(t: Timeline, fail: (reason: string) => never): void {
  if (Math.abs(t.e2eMs - (t.finishedAt - t.arrivedAt)) > PART_TOLERANCE_MS)
    fail('e2e is not finish − arrival');
  if (t.firstTokenAt !== null) {
    if (t.ttftMs === null || Math.abs(t.ttftMs - (t.firstTokenAt - t.arrivedAt)) > PART_TOLERANCE_MS)
      fail('ttft is not first token − arrival');
  } else if (t.ttftMs !== null) fail('ttft without a first token');
  const sumMs = TTFT_PARTS.reduce((sum, part) => sum + t.parts[part], 0);
  const wholeMs = t.ttftMs ?? t.e2eMs;
  const toleranceMs = PART_TOLERANCE_MS * (TTFT_PARTS.length + 1);
  if (Math.abs(sumMs + t.unattributedMs - wholeMs) > toleranceMs)
    fail(`parts sum to ${sumMs + t.unattributedMs} ms, not ${wholeMs} ms`);
}

/**
 * Unattributed time above which a timeline is flagged (ms, and as a share of TTFT): gaps
 * between independently stamped parts are promise and thread hops, microseconds; more means
 * a part is missing a stamp or the main thread was blocked between two of them.
 */
export const UNATTRIBUTED_FLAG = { minMs: 1, shareOfTtft: 0.05 };

/** Why this timeline's unattributed time is too large to trust its parts, or null when it is small. */
export function unattributedProblem(t: Timeline): string | null {
  // A remote request's unattributed time is, by definition, what its server did not report
  // (the network included): large is expected there, and says nothing against its parts.
  if (t.remote) return null;
  const wholeMs = t.ttftMs ?? t.e2eMs;
  const boundMs = Math.max(UNATTRIBUTED_FLAG.minMs, UNATTRIBUTED_FLAG.shareOfTtft * wholeMs);
  if (t.unattributedMs <= boundMs) return null;
  return `${t.unattributedMs.toFixed(3)} ms of ${wholeMs.toFixed(3)} ms before the first token is in no part (bound ${boundMs.toFixed(3)} ms)`;
}

function checkCounts(t: Timeline, fail: (reason: string) => never): void {
  if (t.numCachedTokens > t.numPromptTokens) fail('more cached tokens than prompt tokens');
  if (t.firstTokenAt !== null && t.numOutputTokens < 1) fail('a first token but no output tokens');
  if (t.itlMs.length > Math.max(0, t.numOutputTokens - 1)) fail('more inter-token gaps than tokens');
  if (t.itlMs.some((gap) => gap < 0)) fail('a negative inter-token gap');
  if (t.finishReason === 'rejected' && t.firstTokenAt !== null) fail('a rejected request produced a token');
}

import type { RemoteFacts } from '../../telemetry/timeline/remote-facts';
import type { RecordedFinishReason, LifeState, Timeline, Transition } from '../../telemetry/timeline/schema';
import { canonicalTimeline } from '../../telemetry/timeline/canonical';
import { checkRecorded } from '../../telemetry/timeline/check';
import { deriveInterTokenGaps } from '../../telemetry/timeline/derive';
import { TTFT_PARTS } from '../../telemetry/timeline/parts';
import { LIFE_STATES, zeroParts } from '../../telemetry/timeline/schema';
import type { KnownEngine } from './endpoint-input';
import type { ServerReport } from './engines';
import type { RemoteObservation } from './observation';
import type { Placement } from './placement';
import { placeServerSpan } from './placement';

/** Who a remote request was for and where it went. */
export interface RemoteRequestMeta {
  requestId: string;
  runId: string | null;
  conversationId: string | null;
  /** The reference the caller used (`@endpoint/model`). */
  modelRef: string;
  endpointId: string;
  endpointName: string;
  baseUrl: string;
  engine: KnownEngine;
  serverModelId: string;
  /** Wall-clock epoch ms at the send (the storage anchor). */
  wallAtSend: number;
}

/**
 * The server's span before its first token: its own TTFT when it reports one, else the sum
 * of the parts it reports (0 when it reports none).
 */
export function serverSpanOf(report: ServerReport): number {
  return report.ttftMs ?? Object.values(report.parts).reduce((sum, ms) => sum + ms, 0);
}

/**
 * A remote request's timeline at the client boundary: arrival is the send, the first token
 * the first content received, the finish the stream's end, all on this process's clock. The
 * parts are the durations the server reported; the rest of the client TTFT is unattributed.
 * When the server's span cannot be placed inside the client's (it says it took longer than the
 * client waited) its parts are left out and the reason kept. Checked like every recorded
 * timeline: the server's parts adding up to more than the client waited fails (unattributed < 0).
 */
export function remoteTimeline(
  meta: RemoteRequestMeta,
  seen: RemoteObservation,
  report: ServerReport,
): Timeline {
  const { sentAt, firstContentAt, endedAt } = seen.stamps;
  const placement = firstContentAt === null ? null : placeServerSpan(seen.stamps, serverSpanOf(report));
  const isPlaced = placement?.isPlaced === true;
  const parts = zeroParts();
  if (isPlaced) for (const [part, ms] of Object.entries(report.parts)) parts[part as keyof typeof parts] = ms;
  const wholeMs = (firstContentAt ?? endedAt) - sentAt;
  const attributedMs = TTFT_PARTS.reduce((sum, p) => sum + parts[p], 0);
  const numPromptTokens = report.numPromptTokens ?? 0;
  const finishReason = finishReasonOf(seen);
  return checkRecorded(
    canonicalTimeline({
      requestId: meta.requestId,
      source: 'runtime',
      runId: meta.runId,
      conversationId: meta.conversationId,
      modelId: meta.modelRef,
      modelRevision: '',
      slotId: null,
      isColdSlot: false,
      wallStartMs: meta.wallAtSend,
      arrivedAt: sentAt,
      firstTokenAt: firstContentAt,
      finishedAt: endedAt,
      transitions: placement?.isPlaced ? placedTransitions(placement.arrivalAt, report, firstContentAt!) : [],
      parts,
      unattributedMs: wholeMs - attributedMs,
      ttftMs: firstContentAt === null ? null : firstContentAt - sentAt,
      e2eMs: endedAt - sentAt,
      itlMs: deriveInterTokenGaps(seen.contentAts),
      numPromptTokens,
      numCachedTokens: Math.min(report.numCachedTokens ?? 0, numPromptTokens),
      numOutputTokens: Math.max(report.numOutputTokens ?? 0, seen.contentAts.length),
      numPreemptions: 0,
      finishReason,
      errorMessage: seen.failure?.message ?? null,
      clientTtftMs: firstContentAt === null ? null : firstContentAt - sentAt,
      diagnosis: null,
      // Send → the last content received; the network's split is not known (no shared clock).
      clientE2eMs: seen.contentAts.length === 0 ? null : seen.contentAts.at(-1)! - sentAt,
      networkInMs: null,
      remote: factsOf(meta, seen, report, placement),
    }),
  );
}

/** The reported states placed one after another from the placed arrival, then decode. */
function placedTransitions(arrivalAt: number, report: ServerReport, firstContentAt: number): Transition[] {
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

function factsOf(
  meta: RemoteRequestMeta,
  seen: RemoteObservation,
  report: ServerReport,
  placement: Placement | null,
): RemoteFacts {
  const since = (at: number | null) => (at === null ? null : at - seen.stamps.sentAt);
  return {
    endpointId: meta.endpointId,
    endpointName: meta.endpointName,
    baseUrl: meta.baseUrl,
    engine: meta.engine,
    serverModelId: meta.serverModelId,
    serverRequestId: seen.serverRequestId,
    reportSource: report.source,
    reportedParts: TTFT_PARTS.filter((p) => report.parts[p] !== undefined),
    serverTtftMs: report.ttftMs,
    serverUnattributedMs: report.unattributedMs,
    serverDecodeMs: report.decodeMs,
    serverFinishReason: seen.finishReason,
    headersMs: since(seen.stamps.headersAt),
    firstByteMs: since(seen.stamps.firstByteAt),
    firstContentMs: since(seen.stamps.firstContentAt),
    lastChunkMs: since(seen.stamps.lastChunkAt),
    placedArrivalMs: placement?.isPlaced ? placement.arrivalAt - seen.stamps.sentAt : null,
    placementUncertaintyMs: placement?.isPlaced ? placement.uncertaintyMs : null,
    placementProblem: placement && !placement.isPlaced ? placement.reason : null,
    hasUsage: seen.usage !== null,
  };
}

/** Our finish reason for what the stream said (or how it failed). */
function finishReasonOf(seen: RemoteObservation): RecordedFinishReason {
  const failure = seen.failure;
  if (failure?.kind === 'cancelled') return 'cancelled';
  const isRefused = failure?.kind === 'invalid' || seen.httpStatus === 429 || seen.httpStatus === 503;
  if (failure) return isRefused && seen.stamps.firstContentAt === null ? 'rejected' : 'error';
  const isLength = seen.finishReason === 'length' || seen.finishReason === 'max_tokens';
  return isLength || seen.isCutAtMaxTokens ? 'length' : 'stop';
}

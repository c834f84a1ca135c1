import type { RemoteFacts } from '../../telemetry/timeline/remote-facts';
import type { RecordedFinishReason, Timeline } from '../../telemetry/timeline/schema';
import { canonicalTimeline } from '../../telemetry/timeline/canonical';
import { sealRecorded } from '../../telemetry/timeline/check';
import type { DerivedRemote } from '../../telemetry/timeline/derive';
import { deriveRemote } from '../../telemetry/timeline/derive';
import { TTFT_PARTS } from '../../telemetry/timeline/parts';
import type { KnownEngine } from './endpoint-input';
import type { ServerReport } from './engines';
import type { RemoteObservation } from './observation';

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
 * A remote request's timeline at the client boundary: arrival is the send, the first token
 * the first content received, the finish the stream's end, all on this process's clock. Every
 * interval (parts, unattributed, TTFT, E2E, gaps, the server's placement) is derived by
 * derive.ts's `deriveRemote` from the recorded stamps and the server's report; this adds who
 * the request was for, its counts and its finish. Checked and frozen like every recorded timeline.
 */
export function remoteTimeline(
  meta: RemoteRequestMeta,
  seen: RemoteObservation,
  report: ServerReport,
): Timeline {
  const derived = deriveRemote(seen.stamps, seen.contentAts, report);
  const numPromptTokens = report.numPromptTokens ?? 0;
  return sealRecorded(
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
      arrivedAt: seen.stamps.sentAt,
      firstTokenAt: seen.stamps.firstContentAt,
      finishedAt: seen.stamps.endedAt,
      transitions: derived.transitions,
      parts: derived.parts,
      unattributedMs: derived.unattributedMs,
      ttftMs: derived.ttftMs,
      e2eMs: derived.e2eMs,
      itlMs: derived.itlMs,
      numPromptTokens,
      numCachedTokens: Math.min(report.numCachedTokens ?? 0, numPromptTokens),
      numOutputTokens: Math.max(report.numOutputTokens ?? 0, seen.contentAts.length),
      numPreemptions: 0,
      finishReason: finishReasonOf(seen),
      errorMessage: seen.failure?.message ?? null,
      clientTtftMs: derived.clientTtftMs,
      diagnosis: null,
      clientE2eMs: derived.clientE2eMs,
      networkInMs: derived.networkInMs,
      remote: factsOf(meta, seen, report, derived),
    }),
  );
}

function factsOf(
  meta: RemoteRequestMeta,
  seen: RemoteObservation,
  report: ServerReport,
  derived: DerivedRemote,
): RemoteFacts {
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
    ...derived.stampFacts,
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

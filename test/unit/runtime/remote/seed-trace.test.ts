import { describe, expect, it } from 'vitest';
import { emptyReport } from '../../../../src-main/runtime/remote/engines';
import type { ServerReport } from '../../../../src-main/runtime/remote/engines';
import { emptyObservation } from '../../../../src-main/runtime/remote/observation';
import type { RemoteRequestMeta } from '../../../../src-main/runtime/remote/remote-timeline';
import { remoteTimeline } from '../../../../src-main/runtime/remote/remote-timeline';
import type { PhaseParts } from '../../../../src-main/runtime/remote/seed-trace';
import { collapsedPhases, placedSeedRecord } from '../../../../src-main/runtime/remote/seed-trace';
import { seedToTimeline } from '../../../../src-main/telemetry/trace/seed-record';

const GROUPS: PhaseParts = {
  gateway: ['inbox', 'route', 'slotLoad'],
  queue: ['queue', 'requeue', 'lostPrefill', 'activation'],
  prefill: ['contextLookup', 'prefill'],
  first_decode: ['emit'],
};
const META: RemoteRequestMeta = {
  requestId: 'r1',
  runId: null,
  conversationId: null,
  modelRef: '@box/m',
  endpointId: 'box',
  endpointName: 'Box',
  baseUrl: 'http://box/v1',
  engine: 'first-frame',
  serverModelId: 'm',
  wallAtSend: 0,
};
const T0 = 1_764_500_000_123.456;

function timelineWith(report: ServerReport, firstContent = 100.25) {
  const seen = emptyObservation(T0);
  Object.assign(seen.stamps, {
    headersAt: T0 + firstContent,
    firstByteAt: T0 + firstContent,
    firstContentAt: T0 + firstContent,
    lastChunkAt: T0 + firstContent + 30.5,
    endedAt: T0 + firstContent + 31,
  });
  seen.contentAts = [0, 10.125, 20.25, 30.5].map((d) => T0 + firstContent + d);
  seen.finishReason = 'stop';
  seen.usage = { promptTokens: 24, completionTokens: 4, cachedTokens: 16 };
  return remoteTimeline(META, seen, { ...report, numPromptTokens: 24, numOutputTokens: 4 });
}
const ffReport: ServerReport = {
  ...emptyReport(),
  source: 'first-frame-timings',
  parts: { inbox: 0.5, route: 0.25, queue: 2, activation: 0.25, contextLookup: 0.5, prefill: 60, emit: 1 },
  ttftMs: 64.75,
  unattributedMs: 0.25,
};

describe('seed 003 records of remote requests', () => {
  it('client stamps as taken, server stamps placed at the arrival, in seed 003 order, not rounded', () => {
    const placed = placedSeedRecord(timelineWith(ffReport), GROUPS);
    if (!('record' in placed)) throw new Error(placed.leftOut);
    const r = placed.record;
    const window = 100.25 - 64.75;
    expect(r.client_send_ms).toBe(T0);
    expect(r.gateway_arrival_ms).toBeCloseTo(T0 + window / 2, 3);
    expect(r.queue_enter_ms - r.gateway_arrival_ms).toBeCloseTo(0.75, 3);
    expect(r.prefill_start_ms - r.queue_enter_ms).toBeCloseTo(2.25, 3);
    expect(r.prefill_end_ms - r.prefill_start_ms).toBeCloseTo(60.5, 3);
    // Emit plus the server's own unattributed time: the record has no field for the latter.
    expect(r.first_token_server_ms - r.prefill_end_ms).toBeCloseTo(1.25, 3);
    expect(r.first_token_client_ms - r.client_send_ms).toBeCloseTo(100.25, 3);
    expect(r.last_token_client_ms - r.first_token_client_ms).toBeCloseTo(30.5, 3);
    expect(Number.isInteger(r.client_send_ms)).toBe(false);
    expect(r).toMatchObject({ prompt_tokens: 24, output_tokens: 4 });
    // Read back through the importer: the same client TTFT the client measured.
    expect(seedToTimeline(r).clientTtftMs).toBeCloseTo(100.25, 3);
  });

  it('a server reporting only prefill: the other phases collapse to zero width', () => {
    const llama = { ...emptyReport(), source: 'llama.cpp-timings' as const, parts: { prefill: 40 } };
    const t = timelineWith(llama);
    const placed = placedSeedRecord(t, GROUPS);
    if (!('record' in placed)) throw new Error(placed.leftOut);
    expect(placed.record.queue_enter_ms).toBe(placed.record.gateway_arrival_ms);
    expect(placed.record.first_token_server_ms - placed.record.prefill_start_ms).toBeCloseTo(40, 3);
    expect(collapsedPhases(t.remote!.reportedParts, GROUPS)).toEqual(['gateway', 'queue', 'first_decode']);
    expect(collapsedPhases([], GROUPS)).toEqual(['gateway', 'queue', 'prefill', 'first_decode']);
  });

  it('stamps that cannot be placed in order are left out with the reason', () => {
    const placed = placedSeedRecord(timelineWith(ffReport, 50), GROUPS);
    expect(placed).toEqual({ leftOut: expect.stringMatching(/cannot be placed in order/) });
  });

  it('an answer cut short after some content is not a finished request: left out with its error', () => {
    const seen = emptyObservation(T0);
    Object.assign(seen.stamps, {
      headersAt: T0 + 50,
      firstByteAt: T0 + 50,
      firstContentAt: T0 + 50,
      lastChunkAt: T0 + 60,
    });
    seen.stamps.endedAt = T0 + 61;
    seen.contentAts = [T0 + 50, T0 + 60];
    seen.failure = { kind: 'cut', message: 'the stream stopped mid-answer after 2 text events' };
    expect(placedSeedRecord(remoteTimeline(META, seen, emptyReport()), GROUPS)).toEqual({
      leftOut: 'did not finish (error: the stream stopped mid-answer after 2 text events)',
    });
  });

  it('a request without counts or content is left out, never given invented ones', () => {
    const seen = emptyObservation(T0);
    seen.stamps.endedAt = T0 + 5;
    seen.failure = { kind: 'connect', message: 'refused' };
    expect(placedSeedRecord(remoteTimeline(META, seen, emptyReport()), GROUPS)).toEqual({
      leftOut: 'no content arrived (error)',
    });
  });
});

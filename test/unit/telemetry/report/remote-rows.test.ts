import { describe, expect, it } from 'vitest';
import { emptyReport } from '../../../../src-main/runtime/remote/engines';
import { remoteTimeline } from '../../../../src-main/runtime/remote/remote-timeline';
import { buildReport } from '../../../../src-main/telemetry/report/build-report';
import { finishedAnswer } from '../../../support/remote';
import { timeline } from './timeline-fixture';

/** A remote answer sent at `at`, first content after `ttftMs`, four events 10 ms apart. */
function remote(at: number, ttftMs: number) {
  const first = at + ttftMs;
  const seen = finishedAnswer(at, [first, first + 10, first + 20, first + 30], 4);
  return remoteTimeline(
    {
      requestId: `remote-${at}`,
      runId: null,
      conversationId: null,
      modelRef: '@box/m',
      endpointId: 'box',
      endpointName: 'Box',
      baseUrl: 'http://box/v1',
      engine: 'llama.cpp',
      serverModelId: 'm',
      wallAtSend: 0,
    },
    seen,
    {
      ...emptyReport(),
      source: 'llama.cpp-timings',
      parts: { prefill: ttftMs / 2 },
      numPromptTokens: 20,
      numOutputTokens: 4,
    },
  );
}

describe('reports over remote engines’ timelines', () => {
  const local = timeline({
    parts: { prefill: 20, queue: 5 },
    gapsMs: [10, 10],
    clientTtftMs: 30,
    clientE2eMs: 50,
  });
  const remotes = [remote(2_000, 200), remote(3_000, 400)];
  const report = buildReport([local, ...remotes]);

  it('the server boundary counts only requests served here', () => {
    expect(report.ttft.count).toBe(1);
    expect(report.ttft.p50Ms).toBe(local.ttftMs);
    expect(report.serverPhases.numRequests).toBe(1);
  });

  it('the client boundary counts the remote answers at their client TTFT, with no transport for them', () => {
    expect(report.boundary).toBe('client');
    expect(report.client!.numWithClientTtft).toBe(3);
    expect(report.client!.ttft.p95Ms).toBeCloseTo(400, 6);
    expect(report.client!.transport.count).toBe(1);
    expect(report.client!.transport.p50Ms).toBeCloseTo(30 - local.ttftMs!, 6);
    expect(report.client!.broken.count).toBe(0);
  });
});

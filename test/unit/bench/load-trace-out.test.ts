import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../../bench/load/driver';
import type { LoadHost } from '../../../bench/load/load-host';
import type { MeasuredPhase } from '../../../bench/load/phase';
import { clientObservationOf } from '../../../bench/load/remote-call';
import { summarize } from '../../../bench/load/summary';
import { writeSeedTrace } from '../../../bench/load/trace-out';
import { checkSidecar, sidecarLines } from '../../../src-main/cli/profile-sidecar';
import { emptyReport } from '../../../src-main/runtime/remote/engines';
import type { ServerReport } from '../../../src-main/runtime/remote/engines';
import { emptyObservation } from '../../../src-main/runtime/remote/observation';
import type { RemoteObservation } from '../../../src-main/runtime/remote/observation';
import { remoteTimeline } from '../../../src-main/runtime/remote/remote-timeline';
import { buildReport } from '../../../src-main/telemetry/report/build-report';
import { seedToTimeline, SeedRecordSchema } from '../../../src-main/telemetry/trace/seed-record';
import { readTraceSidecar } from '../../../src-main/telemetry/trace/sidecar';
import { finishedAnswer } from '../../support/remote';

const T0 = 1_764_500_000_000.125;
const dir = mkdtempSync(path.join(os.tmpdir(), 'ff-trace-out-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A llama.cpp-like answer sent at T0 + `at`: first content after `ttftMs`, three events 5 ms apart. */
function answer(at: number, ttftMs: number): RemoteObservation {
  const first = T0 + at + ttftMs;
  const seen = finishedAnswer(T0 + at, [first, first + 5.5, first + 11], 3);
  seen.httpStatus = 200;
  seen.text = 'a b c';
  return seen;
}

function refused(at: number): RemoteObservation {
  const seen = emptyObservation(T0 + at);
  seen.stamps.endedAt = T0 + at + 1;
  seen.failure = { kind: 'connect', message: 'connection refused' };
  return seen;
}

const llama = (prefillMs: number): ServerReport => ({
  ...emptyReport(),
  source: 'llama.cpp-timings',
  parts: { prefill: prefillMs },
  numPromptTokens: 20,
  numOutputTokens: 3,
});

function phaseOf(items: { seen: RemoteObservation; report: ServerReport }[]): MeasuredPhase {
  const records: RequestRecord[] = items.map(({ seen }, index) => ({
    planned: {
      index,
      conversationId: 'c',
      turn: 1,
      parentIndex: null,
      numUserTokens: 20,
      maxTokens: 3,
      textSeed: 1,
    },
    scheduledMs: 0,
    sentMs: 0,
    seen: clientObservationOf(seen),
    remote: seen,
  }));
  const timelines = items.map(({ seen, report }, i) =>
    remoteTimeline(
      {
        requestId: `r${i}`,
        runId: 'run',
        conversationId: null,
        modelRef: '@box:8080/m',
        endpointId: 'box:8080',
        endpointName: 'box:8080',
        baseUrl: 'http://box:8080/v1',
        engine: 'llama.cpp',
        serverModelId: 'm',
        wallAtSend: seen.stamps.sentAt,
      },
      seen,
      report,
    ),
  );
  const summary = summarize(records, null);
  return {
    report: { label: 'burst', ratePerS: null, runId: 'run', summary, server: null, serverPhases: null },
    records,
    timelines,
  };
}

const host = {
  modelId: 'm',
  remote: { baseUrl: 'http://box:8080/v1', engine: 'llama.cpp', isExtended: true },
} as LoadHost;

describe('the load lab’s --trace-out of a remote engine', () => {
  const phase = phaseOf([
    { seen: answer(0, 80.25), report: llama(40) },
    { seen: answer(10, 120.5), report: llama(60) },
    // The server says its prefill took longer than the client waited: cannot be placed in order.
    { seen: answer(20, 30), report: llama(45) },
    { seen: refused(30), report: emptyReport() },
  ]);
  const file = path.join(dir, 'run.jsonl');
  const note = writeSeedTrace(file, host, [phase]);

  it('writes one valid, unrounded seed 003 record per placeable request and counts the rest', () => {
    expect(note).toMatchObject({ numRecords: 2, numLeftOut: 2, sidecar: path.join(dir, 'run.meta.json') });
    const records = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => SeedRecordSchema.parse(JSON.parse(line)));
    expect(records.map((r) => r.first_token_client_ms - r.client_send_ms)).toEqual([80.25, 120.5]);
    expect(Number.isInteger(records[0]!.client_send_ms)).toBe(false);
  });

  it('the sidecar names the engine, the placement and its uncertainty, the collapsed phases and the reasons', () => {
    const side = readTraceSidecar(file);
    if (!side || !('sidecar' in side)) throw new Error(JSON.stringify(side));
    const s = side.sidecar;
    expect(s).toMatchObject({
      engine: 'llama.cpp',
      endpoint: 'http://box:8080/v1',
      num_records: 2,
      num_left_out: 2,
    });
    expect(s.report_sources).toEqual({ 'llama.cpp-timings': 2 });
    expect(s.collapsed_phases).toEqual({ gateway: 2, queue: 2, first_decode: 2 });
    expect(s.clock.uncertainty_ms.max).toBeCloseTo((120.5 - 60) / 2, 6);
    expect(s.left_out.map((l) => l.reason)).toEqual([
      expect.stringMatching(/cannot be placed in order/),
      'no content arrived (error)',
    ]);
    // The lab ranked the three normal finishes; the file holds two: the check says so, never hides it.
    expect(s.lab_client_ttft_ms).toMatchObject({ n: 3, p50: 80.25, p95: 120.5 });
    const report = buildReport(
      readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((line) => seedToTimeline(SeedRecordSchema.parse(JSON.parse(line)))),
    );
    const check = checkSidecar(s, report);
    expect(check.isSame).toBe(false);
    expect(check.note).toMatch(/lab ranked 3 request\(s\), this file 2; 2 left out/);
    const lines = sidecarLines(s, check).join('\n');
    expect(lines).toMatch(/Sidecar: llama\.cpp at http:\/\/box:8080\/v1, model m; 2 record\(s\), 2 left out/);
    expect(lines).toMatch(
      /collapsed server phases \(zero width, no stamps reported\): gateway in 2, queue in 2, first_decode in 2/,
    );
    expect(lines).toMatch(/from this file: .* \(n=2\) — differs: the lab ranked 3/);
  });

  it('an absent sidecar is no sidecar; an unreadable one is a stated problem', () => {
    expect(readTraceSidecar(path.join(dir, 'none.jsonl'))).toBeNull();
    writeFileSync(path.join(dir, 'bad.meta.json'), '{"format": ');
    expect(readTraceSidecar(path.join(dir, 'bad.jsonl'))).toEqual({
      problem: expect.stringMatching(/not JSON/),
    });
    writeFileSync(path.join(dir, 'other.meta.json'), '{"format": "something else"}');
    expect(readTraceSidecar(path.join(dir, 'other.jsonl'))).toEqual({
      problem: expect.stringMatching(/^.*other\.meta\.json: format/),
    });
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpHost } from '../../../../src-main/host/http/http-host';
import type { HttpHost } from '../../../../src-main/host/http/http-host';
import { prepareExport } from '../../../../src-main/service/run-export';
import { openSqliteHistory } from '../../../../src-main/history/history';
import type { History } from '../../../../src-main/history/history';
import { TimelineWindow } from '../../../../src-main/telemetry/report/window';
import { everyFinishTimelines } from '../../telemetry/trace/every-finish';
import { traceProblems } from '../../telemetry/trace/trace-event-format';
import { rawRequest } from './raw-request';
import { ServiceDouble } from './service-double';

describe('GET /api/export.<format> downloads', () => {
  let host: HttpHost;
  let dir: string;
  let history: History;
  let runId: string;
  const live = new TimelineWindow();

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ff-export-http-'));
    history = openSqliteHistory(path.join(dir, 'history.sqlite'));
    runId = history.runs.create({ name: 'r' }).runId;
    for (const t of everyFinishTimelines(runId)) history.writer.enqueue(t);
    history.writer.flush();
    for (const t of everyFinishTimelines().slice(0, 3)) live.push(t);
    host = await startHttpHost({
      service: new ServiceDouble(),
      rendererDir: dir,
      port: 0,
      openExport: (request) =>
        prepareExport({ history, liveTimelines: () => live.toArray(), wallNow: () => 0 }, request),
    });
  });
  afterAll(async () => {
    await host.close();
    history.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('streams each format of a run as an attachment with its type, name and row count', async () => {
    const query = `?runId=${encodeURIComponent(runId)}`;
    const jsonl = await rawRequest(host.port, `/api/export.jsonl${query}`);
    expect(jsonl.status).toBe(200);
    expect(jsonl.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    expect(jsonl.headers['content-disposition']).toMatch(
      new RegExp(`^attachment; filename="first-frame-${runId}-1970-01-01-00-00-00\\.jsonl"$`),
    );
    expect(jsonl.headers['x-row-count']).toBe('8');
    expect(
      jsonl.text
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line).runId),
    ).toEqual(Array(8).fill(runId));
    const trace = await rawRequest(host.port, `/api/export.chrome-trace${query}`);
    expect(trace.headers['content-disposition']).toMatch(/\.trace\.json"$/);
    expect(traceProblems(JSON.parse(trace.text))).toEqual([]);
    const csv = await rawRequest(host.port, `/api/export.csv${query}`);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.text.trimEnd().split('\n')).toHaveLength(9);
  });

  it('without a runId exports the live window', async () => {
    const res = await rawRequest(host.port, '/api/export.jsonl');
    expect(res.headers['content-disposition']).toMatch(/first-frame-live-/);
    expect(res.text.trimEnd().split('\n')).toHaveLength(3);
  });

  it('answers an unknown run or format with a JSON error before any file byte', async () => {
    const run = await rawRequest(host.port, '/api/export.csv?runId=nope');
    expect(run.status).toBe(404);
    expect(run.headers['content-disposition']).toBeUndefined();
    expect(JSON.parse(run.text)).toEqual({
      ok: false,
      error: { code: 'not_found', message: 'no stored run "nope"' },
    });
    const format = await rawRequest(host.port, '/api/export.xlsx');
    expect(format.status).toBe(404);
    expect(JSON.parse(format.text).error.message).toBe(
      'no export format "xlsx": use csv, jsonl, chrome-trace',
    );
    expect((await rawRequest(host.port, '/api/export.csv', { method: 'POST' })).status).toBe(405);
  });
});

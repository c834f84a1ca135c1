import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { prepareExport } from '../../../../src-main/service/run-export';
import { reloadWindow } from '../../../../src-main/service/window-reload';
import type { History } from '../../../../src-main/history/history';
import { openSqliteHistory } from '../../../../src-main/history/history';
import type { ClientTtftUpdate } from '../../../../src-main/history/writer/batch';
import { toReportColumns } from '../../../../src-main/telemetry/report/columns';
import { TimelineWindow } from '../../../../src-main/telemetry/report/window';
import type { ExportFormat } from '../../../../src-main/telemetry/trace/export-formats';
import type { Timeline } from '../../../../src-main/telemetry/timeline/schema';
import { timeline } from '../../telemetry/report/timeline-fixture';
import { useTempDirs } from '../temp-dir';
import { writeV5Database } from '../v5-database';

const tempDir = useTempDirs();

/** Every byte of a request's stored row, as SQLite holds it (hex per column). */
function rowBytes(path: string, requestId: string): unknown {
  const raw = new Database(path, { readonly: true });
  const row = raw.prepare('SELECT * FROM requests WHERE request_id = ?').get(requestId) as Record<
    string,
    unknown
  >;
  raw.close();
  return Object.fromEntries(
    Object.entries(row).map(([k, v]) => [k, Buffer.isBuffer(v) ? v.toString('hex') : [typeof v, v]]),
  );
}

function clientFiguresRows(path: string): unknown[] {
  const raw = new Database(path, { readonly: true });
  const rows = raw
    .prepare(
      'SELECT request_id, client_ttft_ms, transport_ms, client_e2e_ms, network_in_ms FROM client_figures',
    )
    .all();
  raw.close();
  return rows;
}

async function exported(history: History, format: ExportFormat, runId: string): Promise<string> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(chunk));
  await prepareExport({ history, liveTimelines: () => [], wallNow: () => 0 }, { format, runId }).write(out);
  return Buffer.concat(chunks).toString('utf8');
}

const LATE: Omit<ClientTtftUpdate, 'requestId'> = {
  clientTtftMs: 55,
  transportMs: 15,
  clientE2eMs: 70,
  networkInMs: 6,
};

/** A store at `path` holding one finished timeline of a run, flushed before any client figure. */
function storedTimeline(path: string): { history: History; t: Timeline } {
  const history = openSqliteHistory(path);
  const run = history.runs.create({ name: 'late client' });
  const t: Timeline = { ...timeline({ parts: { prefill: 40 }, gapsMs: [5, 5] }), runId: run.runId };
  history.writer.enqueue(t);
  history.writer.flush();
  return { history, t };
}

describe('client figures reported after the timeline was stored', () => {
  it('land in their own row and never update the stored timeline row', () => {
    const path = join(tempDir(), 'history.db');
    const { history, t } = storedTimeline(path);
    const before = rowBytes(path, t.requestId);
    const guard = new Database(path);
    guard.exec(`CREATE TRIGGER stored_timelines_are_final BEFORE UPDATE ON requests
      BEGIN SELECT RAISE(ABORT, 'a stored timeline was updated'); END`);
    guard.close();
    history.writer.enqueueClientTtft({ requestId: t.requestId, ...LATE });
    history.writer.flush();
    expect(history.writer.stats).toMatchObject({ numFailed: 0 });
    expect(rowBytes(path, t.requestId)).toEqual(before);
    expect(clientFiguresRows(path)).toEqual([
      { request_id: t.requestId, client_ttft_ms: 55, transport_ms: 15, client_e2e_ms: 70, network_in_ms: 6 },
    ]);
    history.close();
  });

  it('read back joined: timelines, run reports, CSV and JSONL exports and the reloaded Dashboard window', async () => {
    const { history, t } = storedTimeline(join(tempDir(), 'history.db'));
    history.writer.enqueueClientTtft({ requestId: t.requestId, ...LATE });
    history.writer.flush();
    const expected: Timeline = { ...t, clientTtftMs: 55, clientE2eMs: 70, networkInMs: 6 };
    expect(history.timelines.recent(1)).toEqual([expected]);
    expect(history.timelines.ofRun(t.runId!)).toEqual([expected]);
    expect([...history.timelines.batches({ runId: t.runId! })].flat()).toEqual([expected]);
    expect(history.timelines.reportColumns({ runId: t.runId! }).values).toEqual(
      toReportColumns([expected]).values,
    );
    const [header, row] = (await exported(history, 'csv', t.runId!)).trim().split('\n');
    const cells = Object.fromEntries(header!.split(',').map((name, i) => [name, row!.split(',')[i]]));
    expect(cells).toMatchObject({
      client_ttft_ms: '55',
      transport_ms: '15',
      client_e2e_ms: '70',
      network_in_ms: '6',
    });
    const line = JSON.parse((await exported(history, 'jsonl', t.runId!)).trim()) as Timeline;
    expect(line).toMatchObject({ clientTtftMs: 55, clientE2eMs: 70, networkInMs: 6 });
    const window = new TimelineWindow();
    expect(reloadWindow(history, window, { warn: () => {} })).toBe(1);
    expect(window.latest(t.requestId)).toEqual(expected);
    history.close();
  });

  it('replace figures reported before, are dropped for an unknown request, and leave with their request', () => {
    const path = join(tempDir(), 'history.db');
    const { history, t } = storedTimeline(path);
    history.writer.enqueueClientTtft({ requestId: t.requestId, ...LATE });
    history.writer.enqueueClientTtft({ requestId: t.requestId, clientTtftMs: 60, transportMs: 20 });
    history.writer.enqueueClientTtft({ requestId: 'never-stored', ...LATE });
    history.writer.flush();
    expect(history.timelines.recent(1)[0]).toMatchObject({
      clientTtftMs: 60,
      clientE2eMs: null,
      networkInMs: null,
    });
    expect(history.timelines.reportColumns({}).values.clientE2eMs[0]).toBeNaN();
    expect(clientFiguresRows(path)).toHaveLength(1);
    history.retention.setPolicy({ keepDays: null, keepRequests: 1 });
    history.writer.enqueue(timeline());
    history.writer.flush();
    expect(history.retention.prune().numRequests).toBe(1);
    expect(clientFiguresRows(path)).toEqual([]);
    history.close();
  });
});

describe('migrating to client figures of their own (schema 11)', () => {
  it('carries figures a late report wrote into a row over, leaves remote rows out, and reads the same', () => {
    const path = join(tempDir(), 'old.db');
    const late = timeline({ clientTtftMs: 55, clientE2eMs: 70, networkInMs: 6 });
    const none = timeline();
    const remote: Timeline = { ...timeline({ clientTtftMs: 80 }), remote: null };
    writeV5Database(path, [late, none, remote]);
    const raw = new Database(path);
    raw.prepare("UPDATE requests SET remote_json = '{}' WHERE request_id = ?").run(remote.requestId);
    raw.close();
    const history = openSqliteHistory(path, { log: { warn: () => {} } });
    expect(clientFiguresRows(path)).toEqual([
      {
        request_id: late.requestId,
        client_ttft_ms: 55,
        transport_ms: 55 - late.ttftMs!,
        client_e2e_ms: 70,
        network_in_ms: 6,
      },
    ]);
    const read = history.timelines.recent(3);
    expect(read.slice(0, 2)).toEqual([late, none]);
    expect(history.timelines.reportColumns({}).values.clientE2eMs[0]).toBe(70);
    expect(history.timelines.reportColumns({}).values.networkInMs[0]).toBe(6);
    history.close();
  });
});

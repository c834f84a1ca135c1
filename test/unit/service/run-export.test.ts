import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src-main/telemetry/clock';
import type { CoreDeps } from '../../../src-main/service/core-deps';
import { exportHandlers } from '../../../src-main/service/handlers/exports';
import { ImportBudget } from '../../../src-main/service/import-budget';
import { runHandlers } from '../../../src-main/service/handlers/runs';
import { prepareExport } from '../../../src-main/service/run-export';
import type { ExportSources } from '../../../src-main/service/run-export';
import { HistoryUnavailable } from '../../../src-main/history/errors';
import { nullHistory } from '../../../src-main/history/null-history';
import { openSqliteHistory } from '../../../src-main/history/history';
import type { History } from '../../../src-main/history/history';
import { buildReport, buildReportFromColumns } from '../../../src-main/telemetry/report/build-report';
import { TimelineWindow } from '../../../src-main/telemetry/report/window';
import type { ExportFormat } from '../../../src-main/telemetry/trace/export-formats';
import { everyFinishTimelines } from '../telemetry/trace/every-finish';
import { useTempDirs } from '../history/temp-dir';

const tempDir = useTempDirs();

/** A real SQLite history holding one run made of every finish reason and two preempted requests. */
function storeWithRun(): { history: History; runId: string } {
  const history = openSqliteHistory(join(tempDir(), 'history.sqlite'));
  const { runId } = history.runs.create({ name: 'every finish', startedWallMs: 1_700_000_000_000 });
  for (const t of everyFinishTimelines(runId)) history.writer.enqueue(t);
  history.writer.flush();
  return { history, runId };
}

function sources(history: History, live: TimelineWindow = new TimelineWindow()): ExportSources {
  return { history, liveTimelines: () => live.toArray(), wallNow: () => 1_700_000_000_000 };
}

async function exportText(history: History, format: ExportFormat, runId: string | null): Promise<string> {
  const out = new PassThrough();
  let text = '';
  out.on('data', (c: Buffer) => (text += c.toString()));
  await prepareExport(sources(history), { format, runId }).write(out);
  return text;
}

describe('exports of stored runs', () => {
  it('JSONL round trip: an exported run imported back has the same report and the same timelines', async () => {
    const { history, runId } = storeWithRun();
    const original = history.timelines.ofRun(runId);
    expect(new Set(original.map((t) => t.finishReason)).size).toBe(6);
    expect(original.filter((t) => t.numPreemptions > 0)).toHaveLength(2);
    const jsonl = await exportText(history, 'jsonl', runId);
    expect(jsonl.trimEnd().split('\n')).toHaveLength(original.length);

    const deps = { history, imports: new ImportBudget() } as CoreDeps;
    const imported = await runHandlers(deps)['traces.import']({
      fileName: 'every-finish.jsonl',
      text: jsonl,
      skipBadLines: false,
    });
    history.writer.flush();
    expect(imported).toMatchObject({ numLines: original.length, numImported: original.length, rejected: [] });
    const importedRunId = imported.runId!;
    expect(importedRunId).not.toBe(runId);
    expect(imported.report).toEqual(buildReport(original));
    const storedReport = (id: string) =>
      buildReportFromColumns(history.timelines.reportColumns({ runId: id }));
    expect(storedReport(importedRunId)).toEqual(storedReport(runId));
    expect(history.timelines.ofRun(importedRunId)).toEqual(
      original.map((t) => ({ ...t, runId: importedRunId })),
    );
    expect(await exportText(history, 'jsonl', importedRunId)).toBe(jsonl.replaceAll(runId, importedRunId));
    history.close();
  });

  it('CSV and Perfetto exports of a run come from the same rows, named for the run', async () => {
    const { history, runId } = storeWithRun();
    const prepared = prepareExport(sources(history), { format: 'chrome-trace', runId });
    expect(prepared).toMatchObject({ numRows: 8, mimeType: 'application/json; charset=utf-8' });
    expect(prepared.fileName).toBe(`first-frame-${runId}-2023-11-14-22-13-20.trace.json`);
    const trace = JSON.parse(await exportText(history, 'chrome-trace', runId)) as { traceEvents: unknown[] };
    expect(trace.traceEvents.length).toBeGreaterThan(8 * 8);
    const csv = (await exportText(history, 'csv', runId)).trimEnd().split('\n');
    expect(csv).toHaveLength(1 + 8);
    history.close();
  });

  it('the live window is exported as a snapshot taken when the export is prepared', async () => {
    const history = openSqliteHistory(join(tempDir(), 'history.sqlite'));
    const live = new TimelineWindow(4);
    for (const t of everyFinishTimelines()) live.push(t);
    const prepared = prepareExport(sources(history, live), { format: 'jsonl', runId: null });
    live.clear();
    const out = new PassThrough();
    let text = '';
    out.on('data', (c: Buffer) => (text += c.toString()));
    expect(await prepared.write(out)).toBe(4);
    expect(prepared.fileName).toMatch(/^first-frame-live-.*\.jsonl$/);
    expect(text.trimEnd().split('\n')).toHaveLength(4);
    history.close();
  });

  it('an unknown run, or any run while history is off, is not_found before anything is written', () => {
    const { history } = storeWithRun();
    expect(() => prepareExport(sources(history), { format: 'csv', runId: 'no-such-run' })).toThrow(
      'no stored run "no-such-run"',
    );
    history.close();
    const off = nullHistory(
      new HistoryUnavailable('read-only', '/x/history.sqlite', 'the folder is not writable'),
    );
    expect(() => prepareExport(sources(off), { format: 'jsonl', runId: 'r' })).toThrow(/history is off/);
  });
});

describe('runs.saveExport (the desktop save dialog)', () => {
  // Only the fields the export handlers read; the rest of the core is not needed to save a file.
  const depsOf = (history: History, pickSavePath: CoreDeps['pickSavePath']) =>
    ({
      history,
      window: new TimelineWindow(),
      clock: new ManualClock(),
      pickSavePath,
    }) as Partial<CoreDeps> as CoreDeps;

  it('streams the export to the path the user picked, suggesting the file name', async () => {
    const { history, runId } = storeWithRun();
    const target = join(tempDir(), 'picked.jsonl');
    const asked: string[] = [];
    const save = exportHandlers(
      depsOf(history, async (fileName) => {
        asked.push(fileName);
        return target;
      }),
    )['runs.saveExport'];
    expect(await save({ runId, format: 'jsonl' })).toEqual({ filePath: target, numRows: 8 });
    expect(asked[0]).toMatch(new RegExp(`^first-frame-${runId}-.*\\.jsonl$`));
    expect(readFileSync(target, 'utf8').trimEnd().split('\n')).toHaveLength(8);
    history.close();
  });

  it('a cancelled dialog writes nothing; no dialog is unavailable; a failed write leaves no file', async () => {
    const { history, runId } = storeWithRun();
    const cancelled = exportHandlers(depsOf(history, async () => null))['runs.saveExport'];
    expect(await cancelled({ runId, format: 'csv' })).toEqual({ filePath: null, numRows: 0 });
    const headless = exportHandlers(depsOf(history, null))['runs.saveExport'];
    await expect(headless({ runId, format: 'csv' })).rejects.toThrow(
      `download GET /api/export.csv?runId=${runId}`,
    );
    const dir = tempDir();
    const broken = exportHandlers(depsOf(history, async () => join(dir, 'missing-folder', 'x.csv')))[
      'runs.saveExport'
    ];
    await expect(broken({ runId, format: 'csv' })).rejects.toThrow(/ENOENT/);
    expect(readdirSync(dir)).toEqual([]);
    await expect(cancelled({ runId: 'nope', format: 'csv' })).rejects.toThrow('no stored run "nope"');
    expect(existsSync(join(dir, 'missing-folder'))).toBe(false);
    history.close();
  });
});

import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { syntheticTimelines } from '../../../src-main/telemetry/synthetic/workload';
import { writeChromeTrace } from '../../../src-main/telemetry/trace/chrome-trace';
import { writeCsv } from '../../../src-main/telemetry/trace/csv-export';
import { importTraceFile } from '../../../src-main/telemetry/trace/import-trace';
import { writeJsonl } from '../../../src-main/telemetry/trace/jsonl-export';
import { flattenBatches } from '../../../src-main/telemetry/trace/stream-out';
import { openSqliteHistory } from '../../../src-main/history/history';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('exporting stored timelines', () => {
  it('streams one run as CSV, JSONL and a Chrome trace straight from SQLite batches', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ff-export-'));
    const history = openSqliteHistory(join(dir, 'h.db'));
    const run = history.runs.create({ name: 'exported' });
    const timelines = syntheticTimelines(2_500, { runId: run.runId });
    for (const t of [...timelines, ...syntheticTimelines(100, { seed: 9 })]) history.writer.enqueue(t);
    history.writer.flush();
    const stored = () => flattenBatches(history.timelines.batches({ runId: run.runId }, 300));

    expect(await writeCsv(stored(), createWriteStream(join(dir, 'run.csv')))).toBe(2_500);
    const rows = parse(readFileSync(join(dir, 'run.csv')), { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => r.request_id)).toEqual(timelines.map((t) => t.requestId));

    expect(await writeJsonl(stored(), createWriteStream(join(dir, 'run.jsonl')))).toBe(2_500);
    expect((await importTraceFile(join(dir, 'run.jsonl'))).timelines).toEqual(timelines);

    expect(await writeChromeTrace(stored(), createWriteStream(join(dir, 'run.trace.json')))).toBe(2_500);
    const trace = JSON.parse(readFileSync(join(dir, 'run.trace.json'), 'utf8')) as {
      traceEvents: { tid: number }[];
    };
    expect(new Set(trace.traceEvents.map((e) => e.tid)).size).toBe(2_501);
    history.close();
  });
});

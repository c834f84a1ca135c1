import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildReport } from '../../../src-main/telemetry/report/build-report';
import { syntheticTimelines } from '../../../src-main/telemetry/synthetic/workload';
import { openSqliteHistory } from '../../../src-main/history/history';
import { useTempDirs } from './temp-dir';

const tempDir = useTempDirs();

describe('runs', () => {
  it('are created with their configuration, listed newest first with request counts, and deleted with their timelines', () => {
    const history = openSqliteHistory(join(tempDir(), 'h.db'));
    const config = {
      precision: 'fp16',
      provider: 'cpu',
      numSeats: 4,
      pageSize: 16,
      budgets: { kvBytes: 1e9 },
      workload: 'burst of 8',
      modelRevisions: { tiny: 'abc' },
    };
    const a = history.runs.create({ name: 'A', config, startedWallMs: 1 });
    const b = history.runs.create({ name: 'B', startedWallMs: 2 });
    for (const t of syntheticTimelines(30, { runId: a.runId })) history.writer.enqueue(t);
    history.writer.flush();
    expect(history.runs.list().map((r) => [r.name, r.numRequests])).toEqual([
      ['B', 0],
      ['A', 30],
    ]);
    expect(history.runs.get(a.runId)?.config).toEqual(config);
    expect(history.timelines.ofRun(a.runId)).toHaveLength(30);
    expect(history.runs.remove(a.runId)).toBe(true);
    expect(history.timelines.count({})).toBe(0);
    expect(history.runs.get(b.runId)?.name).toBe('B');
    history.close();
  });

  it('summarise a run for the comparison view from the same report numbers', () => {
    const history = openSqliteHistory(join(tempDir(), 'h.db'));
    const run = history.runs.create({ name: 'A' });
    const timelines = syntheticTimelines(400, { runId: run.runId });
    for (const t of timelines) history.writer.enqueue(t);
    history.writer.flush();
    const slo = { ttftMs: 100, itlMs: 30 };
    const metrics = history.runs.metrics(run.runId, slo, [0, 100, 1_000])!;
    const report = buildReport(timelines, { slo });
    expect(metrics).toMatchObject({
      name: 'A',
      numRequests: 400,
      p95TtftMs: report.ttft.p95Ms,
      requestsPerS: report.throughput!.requestsPerS,
      outputTokensPerS: report.throughput!.outputTokensPerS,
      missedTtftSloShare: report.goodput!.missedTtftShare,
      failedOrRejectedShare: report.throughput!.failedOrRejectedShare,
    });
    const withTtft = timelines.filter((t) => t.ttftMs !== null);
    expect(metrics.ttftHistogram.counts).toEqual([
      withTtft.filter((t) => t.ttftMs! < 100).length,
      withTtft.filter((t) => t.ttftMs! >= 100 && t.ttftMs! < 1_000).length,
      withTtft.filter((t) => t.ttftMs! >= 1_000).length,
    ]);
    expect(history.runs.metrics('missing', slo)).toBeNull();
    history.close();
  });

  it('refuse a configuration with a wrongly typed known field', () => {
    const history = openSqliteHistory(join(tempDir(), 'h.db'));
    expect(() =>
      history.runs.create({ name: 'x', config: { numSeats: 'four' as unknown as number } }),
    ).toThrow();
    history.close();
  });
});

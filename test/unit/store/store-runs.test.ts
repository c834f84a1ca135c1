import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildReport } from '../../../src-main/telemetry/report/build-report';
import { syntheticTimelines } from '../../../src-main/telemetry/synthetic/workload';
import { openSqliteStore } from '../../../src-main/store/store';
import { useTempDirs } from './temp-dir';

const tempDir = useTempDirs();

describe('runs', () => {
  it('are created with their configuration, listed newest first with request counts, and deleted with their timelines', () => {
    const store = openSqliteStore(join(tempDir(), 'h.db'));
    const config = {
      precision: 'fp16',
      provider: 'cpu',
      numSeats: 4,
      pageSize: 16,
      budgets: { kvBytes: 1e9 },
      workload: 'burst of 8',
      modelRevisions: { tiny: 'abc' },
    };
    const a = store.runs.create({ name: 'A', config, startedWallMs: 1 });
    const b = store.runs.create({ name: 'B', startedWallMs: 2 });
    for (const t of syntheticTimelines(30, { runId: a.runId })) store.writer.enqueue(t);
    store.writer.flush();
    expect(store.runs.list().map((r) => [r.name, r.numRequests])).toEqual([
      ['B', 0],
      ['A', 30],
    ]);
    expect(store.runs.get(a.runId)?.config).toEqual(config);
    expect(store.timelines.ofRun(a.runId)).toHaveLength(30);
    expect(store.runs.remove(a.runId)).toBe(true);
    expect(store.timelines.count({})).toBe(0);
    expect(store.runs.get(b.runId)?.name).toBe('B');
    store.close();
  });

  it('summarise a run for the comparison view from the same report numbers', () => {
    const store = openSqliteStore(join(tempDir(), 'h.db'));
    const run = store.runs.create({ name: 'A' });
    const timelines = syntheticTimelines(400, { runId: run.runId });
    for (const t of timelines) store.writer.enqueue(t);
    store.writer.flush();
    const slo = { ttftMs: 100, itlMs: 30 };
    const metrics = store.runs.metrics(run.runId, slo, [0, 100, 1_000])!;
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
    expect(store.runs.metrics('missing', slo)).toBeNull();
    store.close();
  });

  it('refuse a configuration with a wrongly typed known field', () => {
    const store = openSqliteStore(join(tempDir(), 'h.db'));
    expect(() =>
      store.runs.create({ name: 'x', config: { numSeats: 'four' as unknown as number } }),
    ).toThrow();
    store.close();
  });
});

import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { buildReport, buildReportFromColumns } from '../../../src-main/telemetry/report/build-report';
import { toReportColumns } from '../../../src-main/telemetry/report/columns';
import { syntheticTimelines } from '../../../src-main/telemetry/synthetic/workload';
import { openSqliteHistory } from '../../../src-main/history/history';
import { canonicalTimeline } from '../../../src-main/telemetry/timeline/canonical';
import { judgeClientTtft } from '../../../src-main/telemetry/timeline/client-ttft';
import { timeline } from '../telemetry/report/timeline-fixture';
import { everyStateTransitions } from './codec/transition-fixture';
import { useTempDirs } from './temp-dir';

const tempDir = useTempDirs();
const open = () => openSqliteHistory(join(tempDir(), 'history.db'));

describe('stored timelines', () => {
  it('come back exactly as they were written, oldest first', () => {
    const history = open();
    const written = [
      timeline({ parts: { queue: 3, prefill: 7 }, gapsMs: [2, 3] }),
      timeline({ hasFirstToken: false }),
      timeline({ clientTtftMs: 30 }),
    ];
    for (const t of written) history.writer.enqueue(t);
    expect(history.timelines.recent(10)).toEqual([]);
    history.writer.flush();
    expect(history.timelines.recent(10)).toEqual(written);
    expect(history.timelines.recent(2)).toEqual(written.slice(1));
    history.close();
  });

  it('come back exactly when one batch mixes gap counts that outgrow the encoder scratch', () => {
    const history = open();
    const gapsOf = (n: number) => Array.from({ length: n }, (_, i) => 1 + i / 7);
    const written = [3, 0, 600, 1, 2_000, 5].map((n) => timeline({ gapsMs: gapsOf(n) }));
    for (const t of written) history.writer.enqueue(t);
    history.writer.flush();
    expect(history.timelines.recent(10)).toEqual(written);
    const fromStore = buildReportFromColumns(history.timelines.reportColumns({}), { slo: null });
    expect(fromStore).toEqual(buildReport(written, { slo: null }));
    history.close();
  });

  it('keep their transitions in every life state, ends present and absent, bit for bit', () => {
    const history = open();
    const written = canonicalTimeline({ ...timeline(), transitions: everyStateTransitions() });
    history.writer.enqueue(written);
    history.writer.flush();
    const [read] = history.timelines.recent(1);
    expect(read).toEqual(written);
    expect(read!.transitions).toStrictEqual(everyStateTransitions());
    history.close();
  });

  it('load into report columns that give the same report as the timelines themselves', () => {
    const history = open();
    const run = history.runs.create({ name: 'r' });
    const timelines = syntheticTimelines(500, { runId: run.runId, models: ['a', 'b'] });
    for (const t of timelines) history.writer.enqueue(t);
    history.writer.flush();
    const fromStore = buildReportFromColumns(history.timelines.reportColumns({ runId: run.runId }), {
      slo: { ttftMs: 100, itlMs: 30 },
    });
    expect(fromStore).toEqual(buildReport(timelines, { slo: { ttftMs: 100, itlMs: 30 } }));
    expect(history.timelines.reportColumns({ runId: 'other' }).numRequests).toBe(0);
    history.close();
  });

  it('filter by run (or no run), model, finish reason and wall-clock range', () => {
    const history = open();
    const run = history.runs.create({ name: 'r' });
    const a = { ...timeline({ modelId: 'm1' }), runId: run.runId, wallStartMs: 1_000 };
    const b = { ...timeline({ modelId: 'm2', finish: 'length' }), wallStartMs: 2_000 };
    const c = { ...timeline({ modelId: 'm2', hasFirstToken: false }), wallStartMs: 3_000 };
    for (const t of [a, b, c]) history.writer.enqueue(t);
    history.writer.flush();
    const ids = (filter: Parameters<typeof history.timelines.count>[0]) =>
      [...history.timelines.batches(filter)].flat().map((t) => t.requestId);
    expect(ids({ runId: run.runId })).toEqual([a.requestId]);
    expect(ids({ runId: null })).toEqual([b.requestId, c.requestId]);
    expect(ids({ modelId: 'm2', finishReasons: ['rejected'] })).toEqual([c.requestId]);
    expect(ids({ fromWallMs: 1_500, toWallMs: 3_000 })).toEqual([b.requestId]);
    expect(ids({ finishReasons: [] })).toEqual([]);
    expect(history.timelines.count({ modelId: 'm2' })).toBe(2);
    history.close();
  });

  it('read every match in batches without holding a cursor between batches', () => {
    const history = open();
    const timelines = syntheticTimelines(2_345, {});
    for (const t of timelines) history.writer.enqueue(t);
    history.writer.flush();
    const batches = [...history.timelines.batches({}, 1_000)];
    expect(batches.map((b) => b.length)).toEqual([1_000, 1_000, 345]);
    expect(batches.flat().map((t) => t.requestId)).toEqual(timelines.map((t) => t.requestId));
    history.close();
  });

  it('take a late client TTFT: column, transport and the report all see it', () => {
    const history = open();
    const t = timeline({ parts: { prefill: 40 } });
    history.writer.enqueue(t);
    const verdict = judgeClientTtft(t.ttftMs, 55);
    if (!verdict.isAccepted) throw new Error(verdict.reason);
    history.writer.enqueueClientTtft({
      requestId: t.requestId,
      clientTtftMs: 55,
      transportMs: verdict.transportMs,
    });
    history.writer.flush();
    expect(history.timelines.byRequestIds([t.requestId]).get(t.requestId)?.clientTtftMs).toBe(55);
    const report = buildReportFromColumns(history.timelines.reportColumns({}));
    expect(report.clientTtft.p50Ms).toBe(55);
    expect(report.e2ePhases.meansMs.transport).toBe(15);
    expect(toReportColumns([{ ...t, clientTtftMs: 55 }]).values).toEqual(
      history.timelines.reportColumns({}).values,
    );
    history.close();
  });

  it('take late client figures (TTFT, E2E, inbound network): columns and packed report rows agree', () => {
    const history = open();
    const t = timeline({ parts: { prefill: 40 }, gapsMs: [5, 5] });
    history.writer.enqueue(t);
    history.writer.enqueueClientTtft({
      requestId: t.requestId,
      clientTtftMs: 55,
      transportMs: 55 - (t.ttftMs ?? 0),
      clientE2eMs: 70,
      networkInMs: 6,
    });
    history.writer.flush();
    const stored = history.timelines.byRequestIds([t.requestId]).get(t.requestId);
    expect(stored).toMatchObject({ clientTtftMs: 55, clientE2eMs: 70, networkInMs: 6 });
    const expected = { ...t, clientTtftMs: 55, clientE2eMs: 70, networkInMs: 6 };
    expect(history.timelines.reportColumns({}).values).toEqual(toReportColumns([expected]).values);
    expect(history.timelines.reportColumns({}).requestIds).toEqual([t.requestId]);
    history.close();
  });

  it('lose only the timeline that names an unknown run; its neighbours are stored', () => {
    const history = open();
    const good = timeline();
    history.writer.enqueue({ ...timeline(), runId: 'no-such-run' });
    history.writer.enqueue(good);
    history.writer.flush();
    expect(history.timelines.recent(10).map((t) => t.requestId)).toEqual([good.requestId]);
    expect(history.writer.stats).toMatchObject({ numWritten: 1, numFailed: 1 });
    expect(history.isPersistent).toBe(true);
    history.close();
  });

  it('are not on disk until the event loop turns: enqueue never writes', async () => {
    const history = openSqliteHistory(join(tempDir(), 'history.db'), { writer: { flushIntervalMs: 1 } });
    history.writer.enqueue(timeline());
    expect(history.timelines.count({})).toBe(0);
    await vi.waitFor(() => expect(history.timelines.count({})).toBe(1));
    history.close();
  });
});

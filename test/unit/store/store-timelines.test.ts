import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { buildReport, buildReportFromColumns } from '../../../src-main/telemetry/report/build-report';
import { toReportColumns } from '../../../src-main/telemetry/report/columns';
import { syntheticTimelines } from '../../../src-main/telemetry/synthetic/workload';
import { openSqliteStore } from '../../../src-main/store/store';
import { canonicalTimeline } from '../../../src-main/telemetry/timeline/canonical';
import { judgeClientTtft } from '../../../src-main/telemetry/timeline/client-ttft';
import { timeline } from '../telemetry/report/timeline-fixture';
import { everyStateTransitions } from './codec/transition-fixture';
import { useTempDirs } from './temp-dir';

const tempDir = useTempDirs();
const open = () => openSqliteStore(join(tempDir(), 'history.db'));

describe('stored timelines', () => {
  it('come back exactly as they were written, oldest first', () => {
    const store = open();
    const written = [
      timeline({ parts: { queue: 3, prefill: 7 }, gapsMs: [2, 3] }),
      timeline({ hasFirstToken: false }),
      timeline({ clientTtftMs: 30 }),
    ];
    for (const t of written) store.writer.enqueue(t);
    expect(store.timelines.recent(10)).toEqual([]);
    store.writer.flush();
    expect(store.timelines.recent(10)).toEqual(written);
    expect(store.timelines.recent(2)).toEqual(written.slice(1));
    store.close();
  });

  it('come back exactly when one batch mixes gap counts that outgrow the encoder scratch', () => {
    const store = open();
    const gapsOf = (n: number) => Array.from({ length: n }, (_, i) => 1 + i / 7);
    const written = [3, 0, 600, 1, 2_000, 5].map((n) => timeline({ gapsMs: gapsOf(n) }));
    for (const t of written) store.writer.enqueue(t);
    store.writer.flush();
    expect(store.timelines.recent(10)).toEqual(written);
    const fromStore = buildReportFromColumns(store.timelines.reportColumns({}), { slo: null });
    expect(fromStore).toEqual(buildReport(written, { slo: null }));
    store.close();
  });

  it('keep their transitions in every life state, ends present and absent, bit for bit', () => {
    const store = open();
    const written = canonicalTimeline({ ...timeline(), transitions: everyStateTransitions() });
    store.writer.enqueue(written);
    store.writer.flush();
    const [read] = store.timelines.recent(1);
    expect(read).toEqual(written);
    expect(read!.transitions).toStrictEqual(everyStateTransitions());
    store.close();
  });

  it('load into report columns that give the same report as the timelines themselves', () => {
    const store = open();
    const run = store.runs.create({ name: 'r' });
    const timelines = syntheticTimelines(500, { runId: run.runId, models: ['a', 'b'] });
    for (const t of timelines) store.writer.enqueue(t);
    store.writer.flush();
    const fromStore = buildReportFromColumns(store.timelines.reportColumns({ runId: run.runId }), {
      slo: { ttftMs: 100, itlMs: 30 },
    });
    expect(fromStore).toEqual(buildReport(timelines, { slo: { ttftMs: 100, itlMs: 30 } }));
    expect(store.timelines.reportColumns({ runId: 'other' }).numRequests).toBe(0);
    store.close();
  });

  it('filter by run (or no run), model, finish reason and wall-clock range', () => {
    const store = open();
    const run = store.runs.create({ name: 'r' });
    const a = { ...timeline({ modelId: 'm1' }), runId: run.runId, wallStartMs: 1_000 };
    const b = { ...timeline({ modelId: 'm2', finish: 'length' }), wallStartMs: 2_000 };
    const c = { ...timeline({ modelId: 'm2', hasFirstToken: false }), wallStartMs: 3_000 };
    for (const t of [a, b, c]) store.writer.enqueue(t);
    store.writer.flush();
    const ids = (filter: Parameters<typeof store.timelines.count>[0]) =>
      [...store.timelines.batches(filter)].flat().map((t) => t.requestId);
    expect(ids({ runId: run.runId })).toEqual([a.requestId]);
    expect(ids({ runId: null })).toEqual([b.requestId, c.requestId]);
    expect(ids({ modelId: 'm2', finishReasons: ['rejected'] })).toEqual([c.requestId]);
    expect(ids({ fromWallMs: 1_500, toWallMs: 3_000 })).toEqual([b.requestId]);
    expect(ids({ finishReasons: [] })).toEqual([]);
    expect(store.timelines.count({ modelId: 'm2' })).toBe(2);
    store.close();
  });

  it('read every match in batches without holding a cursor between batches', () => {
    const store = open();
    const timelines = syntheticTimelines(2_345, {});
    for (const t of timelines) store.writer.enqueue(t);
    store.writer.flush();
    const batches = [...store.timelines.batches({}, 1_000)];
    expect(batches.map((b) => b.length)).toEqual([1_000, 1_000, 345]);
    expect(batches.flat().map((t) => t.requestId)).toEqual(timelines.map((t) => t.requestId));
    store.close();
  });

  it('take a late client TTFT: column, transport and the report all see it', () => {
    const store = open();
    const t = timeline({ parts: { prefill: 40 } });
    store.writer.enqueue(t);
    const verdict = judgeClientTtft(t.ttftMs, 55);
    if (!verdict.isAccepted) throw new Error(verdict.reason);
    store.writer.enqueueClientTtft({
      requestId: t.requestId,
      clientTtftMs: 55,
      transportMs: verdict.transportMs,
    });
    store.writer.flush();
    expect(store.timelines.byRequestIds([t.requestId]).get(t.requestId)?.clientTtftMs).toBe(55);
    const report = buildReportFromColumns(store.timelines.reportColumns({}));
    expect(report.clientTtft.p50Ms).toBe(55);
    expect(report.e2ePhases.meansMs.transport).toBe(15);
    expect(toReportColumns([{ ...t, clientTtftMs: 55 }]).values).toEqual(
      store.timelines.reportColumns({}).values,
    );
    store.close();
  });

  it('take late client figures (TTFT, E2E, inbound network): columns and packed report rows agree', () => {
    const store = open();
    const t = timeline({ parts: { prefill: 40 }, gapsMs: [5, 5] });
    store.writer.enqueue(t);
    store.writer.enqueueClientTtft({
      requestId: t.requestId,
      clientTtftMs: 55,
      transportMs: 55 - (t.ttftMs ?? 0),
      clientE2eMs: 70,
      networkInMs: 6,
    });
    store.writer.flush();
    const stored = store.timelines.byRequestIds([t.requestId]).get(t.requestId);
    expect(stored).toMatchObject({ clientTtftMs: 55, clientE2eMs: 70, networkInMs: 6 });
    const expected = { ...t, clientTtftMs: 55, clientE2eMs: 70, networkInMs: 6 };
    expect(store.timelines.reportColumns({}).values).toEqual(toReportColumns([expected]).values);
    expect(store.timelines.reportColumns({}).requestIds).toEqual([t.requestId]);
    store.close();
  });

  it('lose only the timeline that names an unknown run; its neighbours are stored', () => {
    const store = open();
    const good = timeline();
    store.writer.enqueue({ ...timeline(), runId: 'no-such-run' });
    store.writer.enqueue(good);
    store.writer.flush();
    expect(store.timelines.recent(10).map((t) => t.requestId)).toEqual([good.requestId]);
    expect(store.writer.stats).toMatchObject({ numWritten: 1, numFailed: 1 });
    expect(store.isPersistent).toBe(true);
    store.close();
  });

  it('are not on disk until the event loop turns: enqueue never writes', async () => {
    const store = openSqliteStore(join(tempDir(), 'history.db'), { writer: { flushIntervalMs: 1 } });
    store.writer.enqueue(timeline());
    expect(store.timelines.count({})).toBe(0);
    await vi.waitFor(() => expect(store.timelines.count({})).toBe(1));
    store.close();
  });
});

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../../../src-main/runtime/settings/schema';
import { compareRuns } from '../../../../src-main/service/compare/compare-runs';
import { decisionSentence } from '../../../../src-main/service/compare/decision';
import { openSqliteHistory } from '../../../../src-main/history/history';
import { timeline } from '../../telemetry/report/timeline-fixture';
import { useTempDirs } from '../../history/temp-dir';

const tempDir = useTempDirs();
const SLO = { ttftMs: 100, itlMs: 50 };

describe('comparing configurations (seed 002)', () => {
  it('states the trade in one sentence: p95 TTFT, goodput, throughput and failures, never a winner', () => {
    const a = {
      label: 'A',
      boundary: 'client' as const,
      p95TtftMs: 2_800,
      goodShare: 0.79,
      outputTokensPerS: 2_400,
      failedOrRejectedShare: 0.004,
      quality: null,
    };
    const b = { ...a, label: 'B', p95TtftMs: 600, goodShare: 0.97, outputTokensPerS: 1_600 };
    expect(decisionSentence('live hints', a, b, false)).toBe(
      'Under live hints, B cuts p95 client TTFT by 78.6% (2,800 ms → 600 ms) at 22.8% higher goodput (79.0% → 97.0% of requests); 33.3% less output throughput (2400.0 → 1600.0 tokens/s); failed or rejected 0.4% → 0.4%.',
    );
    const withQuality = decisionSentence(
      'drafts',
      a,
      { ...b, quality: { variant: 'q4', bitsPerByte: 1.3012, agreement: 0.61 } },
      true,
    );
    expect(withQuality).toMatch(
      /quality A not measured vs B 1\.3012 bits\/byte \(q4, greedy agreement 61\.0%\)\.$/,
    );
  });

  it('groups runs into configurations by their settings, highlights what differs, and gives one block per workload', () => {
    const history = openSqliteHistory(join(tempDir(), 'h.db'));
    const settingsOf = (maxSeats: number) => ({ ...DEFAULT_SETTINGS, maxSeats });
    const burst = { arrivals: 'bursts of 8', requests: 2 };
    const poisson = { arrivals: 'Poisson at 2/s', requests: 2 };
    const runs = [
      history.runs.create({ name: 'two seats, burst', config: { settings: settingsOf(2), workload: burst } }),
      history.runs.create({
        name: 'four seats, burst',
        config: { settings: settingsOf(4), workload: burst },
      }),
      history.runs.create({
        name: 'two seats, poisson',
        config: { settings: settingsOf(2), workload: poisson },
      }),
    ];
    // Two seats: queued 200 ms; four seats: queued 20 ms, same prefill.
    const queueOf = [200, 20, 10];
    runs.forEach((run, i) => {
      for (const k of [0, 1])
        history.writer.enqueue({
          ...timeline({ arrivedAt: 1_000 + k, parts: { queue: queueOf[i]!, prefill: 30 }, gapsMs: [5] }),
          runId: run.runId,
        });
    });
    history.writer.flush();
    const comparison = compareRuns(
      history,
      runs.map((r) => r.runId),
      SLO,
    );
    expect(comparison.configurations.map((c) => [c.label, c.settings.maxSeats, c.runIds.length])).toEqual([
      ['A, C', '2', 2],
      ['B', '4', 1],
    ]);
    expect(comparison.differingKeys).toEqual(['maxSeats']);
    // Each run keeps its own letter; a configuration is named by the runs that share it.
    expect(
      comparison.workloads.map((w) => [w.label, w.rows.map((r) => `${r.runLabel} (${r.configLabel})`)]),
    ).toEqual([
      ['arrivals bursts of 8, requests 2', ['A (A, C)', 'B (B)']],
      ['arrivals Poisson at 2/s, requests 2', ['C (A, C)']],
    ]);
    const [block] = comparison.workloads;
    expect(block!.rows.map((r) => [r.boundary, r.p95TtftMs, r.goodShare])).toEqual([
      ['server', 230, 0],
      ['server', 50, 1],
    ]);
    expect(block!.decisions).toEqual([
      expect.stringMatching(
        /^Under arrivals bursts of 8, requests 2, B cuts p95 server TTFT by 78\.3% \(230 ms → 50 ms\) with goodput 0% → 100\.0%/,
      ),
    ]);
    expect(comparison.workloads[1]!.decisions).toEqual([]);
    history.close();
  });

  it('names a workload in words, a count of one in the singular', () => {
    const history = openSqliteHistory(join(tempDir(), 'h.db'));
    const one = history.runs.create({
      name: 'one',
      config: { workload: { kind: 'first-frame', numRuns: 1 } },
    });
    const two = history.runs.create({
      name: 'two',
      config: { workload: { kind: 'load', numRequests: 6, ratePerS: 20 } },
    });
    const comparison = compareRuns(history, [one.runId, two.runId], SLO);
    expect(comparison.workloads.map((w) => w.label)).toEqual([
      'first-frame benchmark, 1 run',
      'load test, 6 requests, 20 per second',
    ]);
    history.close();
  });

  it('refuses an unknown run by name', () => {
    const history = openSqliteHistory(join(tempDir(), 'h.db'));
    const run = history.runs.create({ name: 'only' });
    expect(() => compareRuns(history, [run.runId, 'nope'], SLO)).toThrow(/no run "nope"/);
    history.close();
  });
});

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../../bench/load';
import { createHistory } from '../../../src-main/history/create-history';
import { buildReport } from '../../../src-main/telemetry/report/build-report';
import { runCaptured } from '../../support/cli';
import { TEST_MODEL_ID, TEST_MODELS_DIR } from '../../support/runtime';

describe('npm run bench -- load (in-process headless core + /v1 server)', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ff-load-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('drives a burst through the HTTP API, reports client vs server TTFT and stores a comparable run', async () => {
    const csv = path.join(dataDir, 'requests.csv');
    const argv = [
      '--model',
      path.join(TEST_MODELS_DIR, TEST_MODEL_ID),
      '--profile',
      'burst',
      '--burst',
      '3',
      '--requests',
      '6',
      '--warmup',
      '1',
      '--prompt-tokens',
      'uniform:16-40',
      '--output-tokens',
      'fixed:6',
      '--multi-turn-share',
      '0.5',
      '--seed',
      '4',
      '--slo-ttft',
      '5000',
      '--slo-itl',
      '1000',
      '--data-dir',
      dataDir,
      '--threads',
      '1',
      '--json',
      '--csv',
      csv,
    ];
    const { code, out, err } = await runCaptured(run, argv);
    expect(code, err.join('\n')).toBe(0);
    type Stats = { n: number; p50: number | null; count: number };
    const report = JSON.parse(out.join('\n')) as {
      phases: {
        runId: string;
        summary: Record<string, unknown> & { clientTtftMs: Stats; transportMs: Stats };
        server: { ttft: Stats };
      }[];
    };
    const [phase] = report.phases;
    expect(phase!.summary).toMatchObject({ numSent: 6, numOk: 6, numRejected: 0, goodput: { numGood: 6 } });
    expect(phase!.summary.clientTtftMs.n).toBe(6);
    expect(phase!.summary.transportMs.p50).toBeGreaterThanOrEqual(0);
    expect(phase!.server.ttft.count).toBe(6);
    expect(readFileSync(csv, 'utf8').trim().split('\n')).toHaveLength(7);
    const history = createHistory({ path: path.join(dataDir, 'history.sqlite'), isPruning: false });
    try {
      const stored = history.runs.get(phase!.runId);
      expect(stored).toMatchObject({
        numRequests: 6,
        config: {
          workload: { profile: 'burst', burst: 3, seed: 4 },
          settings: { maxSeats: 4, numThreads: 1 },
        },
      });
      const timelines = history.timelines.ofRun(phase!.runId);
      expect(timelines.every((t) => t.clientTtftMs !== null && t.clientTtftMs >= (t.ttftMs ?? 0))).toBe(true);
      // The client runs in this process: its send and the server's arrival share one clock.
      for (const t of timelines) {
        expect(t.networkInMs).toBeGreaterThanOrEqual(0);
        expect(t.clientE2eMs).toBeGreaterThanOrEqual(t.clientTtftMs!);
      }
      const client = buildReport(timelines).client;
      expect(client?.broken.count).toBe(0);
      expect(client?.phases?.numRequests).toBe(6);
      expect(history.runs.metrics(phase!.runId, { ttftMs: 5000, itlMs: 1000 })?.p95TtftMs).toBeGreaterThan(0);
    } finally {
      history.close();
    }
  });
});

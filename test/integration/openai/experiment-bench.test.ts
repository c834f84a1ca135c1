import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../../bench/experiment';
import { createHistory } from '../../../src-main/history/create-history';
import { runCaptured } from '../../support/cli';
import { TEST_MODEL_ID, TEST_MODELS_DIR } from '../../support/runtime';

describe('npm run bench -- experiment (the same workload under each value, each arm a stored run)', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ff-experiment-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('replays one burst under seats=1 and seats=2 in interleaved rounds and files one run per arm', async () => {
    const argv = [
      '--model',
      path.join(TEST_MODELS_DIR, TEST_MODEL_ID),
      '--vary',
      'seats=1,2',
      '--workload',
      'burst:2',
      '--requests',
      '2',
      '--rounds',
      '2',
      '--warmup',
      '1',
      '--prompt-tokens',
      'fixed:16',
      '--output-tokens',
      'fixed:4',
      '--threads',
      '1',
      '--data-dir',
      dataDir,
      '--json',
    ];
    const { code, out, err } = await runCaptured(run, argv);
    expect(code, err.join('\n')).toBe(0);
    const report = JSON.parse(out.join('\n')) as {
      experimentId: string;
      arms: { arm: string; run_id: string; num_sent: number; num_ok: number; numRequests: number }[];
      ratios: { arm: string; queueMeanRatio: number | null }[];
    };
    expect(report.arms.map((a) => [a.arm, a.num_sent, a.num_ok, a.numRequests])).toEqual([
      ['seats=1', 4, 4, 4],
      ['seats=2', 4, 4, 4],
    ]);
    expect(report.ratios).toEqual([expect.objectContaining({ arm: 'seats=2', against: 'seats=1' })]);
    const history = createHistory({ path: path.join(dataDir, 'history.sqlite'), isPruning: false });
    try {
      const runs = report.arms.map((a) => history.runs.get(a.run_id)!);
      expect(
        runs.map((r) => [r.numRequests, r.config.settings?.maxSeats, r.config.experiment?.value]),
      ).toEqual([
        [4, 1, '1'],
        [4, 2, '2'],
      ]);
      expect(new Set(runs.map((r) => r.config.experiment?.experimentId))).toEqual(
        new Set([report.experimentId]),
      );
      // The in-process client shares the server's clock: every stored request has its network legs apart.
      for (const r of runs)
        expect(history.timelines.ofRun(r.runId).every((t) => t.networkInMs !== null)).toBe(true);
    } finally {
      history.close();
    }
  });
});

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../bench/load';
import { firstDisorder } from '../../../src-main/runtime/remote/seed-trace';
import { compareRuns } from '../../../src-main/service/compare/compare-runs';
import { createHistory } from '../../../src-main/history/create-history';
import { SeedRecordSchema } from '../../../src-main/telemetry/trace/seed-record';
import { readTraceSidecar } from '../../../src-main/telemetry/trace/sidecar';
import { runCaptured } from '../../support/cli';
import { TEST_MODEL_ID, TEST_MODELS_DIR } from '../../support/runtime';
import type { ApiFixture } from '../openai/api-server';
import { startApiFixture } from '../openai/api-server';

const KEY = 'sk-lab-remote-0001';
const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');

type Stats = { n: number; p50: number | null; p90: number | null; p95: number | null; p99: number | null };

/** Runs the lab in this process: its exit code, stdout lines and stderr lines. */
const lab = (argv: string[]) => runCaptured(run, argv);

describe('npm run bench -- load --url: a second First Frame host as the remote engine', () => {
  let second: ApiFixture;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ff-lab-remote-'));
  const traceFile = path.join(dir, 'remote.jsonl');
  beforeAll(async () => {
    second = await startApiFixture({ apiKey: KEY });
  });
  afterAll(async () => {
    await second.close();
    rmSync(dir, { recursive: true, force: true });
  });
  /** The same workload for every run: a burst of 3, six measured requests. */
  const workload = () => [
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
    'fixed:5',
    '--seed',
    '3',
    '--data-dir',
    dir,
  ];
  const args = (over: string[]) => [...workload(), '--url', second.server.baseUrl, ...over];
  let remoteRunId = '';

  it('stores the run, writes seed 003 records and a sidecar that profile reads back with the lab’s client TTFT percentiles', async () => {
    const { code, out } = await lab(args(['--api-key', KEY, '--json', '--trace-out', traceFile]));
    expect(code).toBe(0);
    const report = JSON.parse(out.join('\n')) as {
      trace_out: { numRecords: number; numLeftOut: number };
      phases: {
        runId: string;
        summary: { numOk: number; clientTtftMs: Stats };
        server: { boundary: unknown };
      }[];
    };
    const [phase] = report.phases;
    remoteRunId = phase!.runId;
    expect(phase!.summary.numOk).toBe(6);
    expect(report.trace_out).toMatchObject({ numRecords: 6, numLeftOut: 0 });

    // The run is in this lab's history like a local run: endpoint, engine and model in its config.
    const history = createHistory({ path: path.join(dir, 'history.sqlite'), isPruning: false });
    try {
      expect(history.runs.get(phase!.runId)).toMatchObject({
        numRequests: 6,
        config: {
          endpoint: { baseUrl: second.server.baseUrl, engine: 'first-frame' },
          workload: { burst: 3 },
        },
      });
      // Runs reads it at the client boundary, the lab's own figures; no server-boundary TTFT is claimed.
      const metrics = history.runs.metrics(phase!.runId, { ttftMs: 1_000, itlMs: 80 });
      expect(metrics).toMatchObject({ boundary: 'client', p95TtftMs: null });
      expect(metrics!.atBoundary.p95TtftMs).toBe(phase!.summary.clientTtftMs.p95);
      const timelines = history.timelines.ofRun(phase!.runId);
      expect(timelines).toHaveLength(6);
      for (const t of timelines) {
        expect(t.modelId.startsWith('@127.0.0.1:')).toBe(true);
        expect(t.remote).toMatchObject({ engine: 'first-frame', reportSource: 'first-frame-timings' });
        expect(t.clientTtftMs).toBe(t.ttftMs);
      }
    } finally {
      history.close();
    }

    // Every record passes seed 003's validation; stamps keep their fractions of a millisecond.
    const lines = readFileSync(traceFile, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(6);
    const records = lines.map((line) => SeedRecordSchema.parse(JSON.parse(line)));
    for (const record of records) expect(firstDisorder(record)).toBeNull();
    expect(
      records.some((r) => !Number.isInteger(r.client_send_ms) || !Number.isInteger(r.first_token_client_ms)),
    ).toBe(true);

    const side = readTraceSidecar(traceFile);
    if (!side || !('sidecar' in side)) throw new Error(`no readable sidecar: ${JSON.stringify(side)}`);
    expect(side.sidecar).toMatchObject({ engine: 'first-frame', num_records: 6, num_left_out: 0 });
    expect(side.sidecar.lab_client_ttft_ms).toMatchObject(phase!.summary.clientTtftMs);

    const { stdout } = await promisify(execFile)(
      'npx',
      ['tsx', 'src-main/cli/profile.ts', traceFile, '--json'],
      {
        cwd: REPO_ROOT,
      },
    );
    const profile = JSON.parse(stdout) as { sidecar_client_ttft_check: { isSame: boolean; file: Stats } };
    console.log(
      `lab client TTFT ${JSON.stringify(phase!.summary.clientTtftMs)}; profile ${JSON.stringify(profile.sidecar_client_ttft_check.file)}`,
    );
    expect(profile.sidecar_client_ttft_check.isSame).toBe(true);
    expect(profile.sidecar_client_ttft_check.file).toMatchObject({
      n: 6,
      p50: phase!.summary.clientTtftMs.p50,
      p95: phase!.summary.clientTtftMs.p95,
    });
  });

  it('Runs compares a local run and the remote one side by side, both at the client boundary', async () => {
    const local = await lab([...workload(), '--threads', '1', '--json']);
    expect(local.code).toBe(0);
    const localRunId = (JSON.parse(local.out.join('\n')) as { phases: { runId: string }[] }).phases[0]!.runId;
    const history = createHistory({ path: path.join(dir, 'history.sqlite'), isPruning: false });
    try {
      const comparison = compareRuns(history, [localRunId, remoteRunId], { ttftMs: 5_000, itlMs: 1_000 });
      // Same workload, two configurations: this machine's runtime, and the endpoint's model.
      expect(comparison.configurations.map((c) => c.runIds)).toEqual([[localRunId], [remoteRunId]]);
      expect(comparison.configurations.map((c) => c.servedBy)).toEqual([
        null,
        `first-frame at ${second.server.baseUrl}, model ${TEST_MODEL_ID}`,
      ]);
      // The remote settings are the server's own: not "differing" from this machine's.
      expect(comparison.differingKeys).toEqual([]);
      expect(comparison.workloads).toHaveLength(1);
      const [block] = comparison.workloads;
      expect(block!.rows.map((r) => r.boundary)).toEqual(['client', 'client']);
      expect(block!.rows[1]!.serverP95TtftMs).toBeNull();
      expect(block!.decisions[0]).toMatch(/^Under .*, B (cuts|raises|keeps) p95 client TTFT/);
      console.log(block!.decisions[0]);
    } finally {
      history.close();
    }
  });

  it('a wrong key is one clear error before anything is sent, and the remote host keeps serving', async () => {
    const { code, err } = await lab(args(['--api-key', 'sk-wrong', '--no-store']));
    expect(code).toBe(1);
    expect(err.join('\n')).toMatch(/401/);
    const again = await lab(
      args(['--api-key', KEY, '--no-store', '--requests', '2', '--warmup', '0', '--json']),
    );
    expect(again.code).toBe(0);
  });
});

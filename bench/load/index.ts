/**
 * `npm run bench -- load …`: the offered-load lab. Drives the runtime through the
 * OpenAI-compatible HTTP API (streamed, include_usage) under an arrival profile, stamps every
 * chunk on the client, and reports client and server TTFT (transport = their difference),
 * ITL, throughput, rejected share and goodput, as text or JSON, plus a CSV and a stored run.
 */
import os from 'node:os';
import { loadModelFolder } from '../../src-main/runtime/model/load-folder';
import { createHistory } from '../../src-main/history/create-history';
import path from 'node:path';
import type { LoadConfig } from './args';
import { LOAD_USAGE, parseLoadArgs } from './args';
import { connectRemoteHost } from './remote';
import { startInProcessHost } from './in-process';
import { independentPairs, jointPairs, lengthSampler } from './lengths';
import type { LengthPair, LengthSpec, PairSampler } from './lengths';
import type { LoadHost } from './load-host';
import type { RequestRecord } from './driver';
import { LOAD_BOUNDARIES, printPhases, writeRequestsCsv } from './output';
import type { PhaseReport } from './output';
import type { PhaseContext } from './phase';
import { measurePhase, warmUp, workloadOf } from './phase';
import { traceLine, writeSeedTrace } from './trace-out';
import type { TraceOutNote } from './trace-out';
import { print, printError } from '../../src-main/printable';

/** Entry point for `npm run bench -- load`. */
export async function run(argv: string[]): Promise<number> {
  let config: LoadConfig;
  try {
    config = parseLoadArgs(argv);
  } catch (error) {
    printError(`${(error as Error).message}\n${LOAD_USAGE}`);
    return 2;
  }
  const folder = loadModelFolder(config.modelDir);
  let host: LoadHost;
  try {
    host = await openHost(config);
  } catch (error) {
    // An unreachable endpoint, a wrong key, a model folder that will not load: one clear line.
    printError(`load lab: ${(error as Error).message}`);
    return 1;
  }
  try {
    const ctx: PhaseContext = {
      host,
      tokenizer: folder.tokenizer,
      config,
      lengths: pairsOf(config),
    };
    await warmUp(ctx);
    const phases = [];
    for (const [index, rate] of config.rates.entries()) phases.push(await measurePhase(ctx, index, rate));
    const trace =
      config.traceOutPath && host.remote ? writeSeedTrace(config.traceOutPath, host, phases) : null;
    emitReport(config, host, phases, trace);
    return 0;
  } finally {
    await host.close();
  }
}

/** The remote engine at `--url`, or the in-process headless host. */
function openHost(config: LoadConfig): Promise<LoadHost> {
  return config.url
    ? connectRemoteHost({
        baseUrl: config.url,
        apiKey: config.apiKey,
        modelDir: config.modelDir,
        variant: config.variant,
        dataDir: config.dataDir,
      })
    : startInProcessHost({
        modelDir: config.modelDir,
        variant: config.variant,
        dataDir: config.dataDir,
        settings: config.settings,
      });
}

/** Prints the report (text, or JSON with --json) and writes the CSV when asked. */
function emitReport(
  config: LoadConfig,
  host: LoadHost,
  phases: { report: PhaseReport; records: RequestRecord[] }[],
  trace: TraceOutNote | null,
): void {
  const report = {
    benchmark: 'load',
    model: { id: host.modelId, dir: config.modelDir },
    target: config.url ?? 'in-process: headless runtime + /v1 server on 127.0.0.1, client in a worker thread',
    machine: { cpus: os.availableParallelism(), loadavg_1m: Number(os.loadavg()[0]!.toFixed(2)) },
    workload: workloadOf(config, null),
    boundary: LOAD_BOUNDARIES,
    statistic:
      'nearest-rank percentiles for totals, means for TTFT parts; warm-up excluded; rejected = HTTP 429',
    store: host.storeNote,
    ...(trace ? { trace_out: trace } : {}),
    phases: phases.map((p) => p.report),
  };
  if (config.csvPath)
    writeRequestsCsv(
      config.csvPath,
      phases.map((p) => ({ label: p.report.label, records: p.records })),
    );
  if (config.isJson) return print(JSON.stringify(report, null, 2));
  printPhases(report.phases, [
    `load lab — model ${host.modelId} — ${report.target}`,
    `workload: ${JSON.stringify(report.workload)}`,
    `machine: ${JSON.stringify(report.machine)}`,
    `statistic: ${report.statistic}`,
    `store: ${report.store}`,
    ...(trace ? [traceLine(trace)] : []),
    ...Object.entries(LOAD_BOUNDARIES).map(([k, v]) => `${k}: ${v}`),
  ]);
}

/**
 * The lengths of each request. Both specs `run:<id>` of the same run draw whole requests from
 * it (the joint prompt/output distribution); otherwise each length is drawn on its own (a
 * `run:` spec from that run's prompt or output lengths).
 */
function pairsOf(config: LoadConfig): PairSampler {
  const { promptLengths: prompt, outputLengths: output } = config;
  if (prompt.kind === 'run' && output.kind === 'run' && prompt.runId === output.runId)
    return jointPairs(storedPairs(prompt.runId, config.dataDir), `run ${prompt.runId}`);
  const one = (spec: LengthSpec, pick: (p: LengthPair) => number) =>
    spec.kind === 'run'
      ? lengthSampler(spec, storedPairs(spec.runId, config.dataDir).map(pick))
      : lengthSampler(spec);
  return independentPairs(
    one(prompt, (p) => p.numPromptTokens),
    one(output, (p) => p.numOutputTokens),
  );
}

/** Each stored request's prompt and output lengths, in order. */
function storedPairs(runId: string, dataDir: string | null): LengthPair[] {
  if (!dataDir) throw new Error(`run:${runId} needs the history (drop --no-store or pass --data-dir)`);
  const history = createHistory({ path: path.join(dataDir, 'history.sqlite'), isPruning: false });
  try {
    return history.timelines
      .ofRun(runId)
      .map((t) => ({ numPromptTokens: t.numPromptTokens, numOutputTokens: t.numOutputTokens }));
  } finally {
    history.close();
  }
}

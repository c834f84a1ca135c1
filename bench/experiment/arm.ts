import type { ArmSummary } from '../../src-main/telemetry/report/arm-summary';
import type { Timeline } from '../../src-main/telemetry/timeline/schema';
import { armSummary } from '../../src-main/telemetry/report/arm-summary';
import { prng } from '../../src-main/telemetry/synthetic/workload';
import { promptOfTokens } from '../first-frame/prompts';
import type { TextTokenizer } from '../../src-main/runtime/tokenize/tokenizer';
import { startInProcessHost } from '../load/in-process';
import { independentPairs, lengthSampler } from '../load/lengths';
import type { LoadHost } from '../load/load-host';
import { planRequests } from '../load/plan';
import { reportClientFigures } from '../load/report-clients';
import { ProgressBar } from '../load/progress';
import { isOk } from '../load/summary';
import { runPhaseInWorker } from '../load/worker-driver';
import type { Arm, ExperimentConfig } from './args';
import type { SharedWorkload } from './workload';

/** What one arm measured over every round: its run, its settings, the seed 001 summary and the raw counts. */
export interface ArmResult {
  arm: Arm;
  runId: string | null;
  settings: Record<string, unknown>;
  summary: ArmSummary;
  numSent: number;
  numOk: number;
  numRejected: number;
}

/** The experiment's identity, stored in every arm's run config so the arms can be found together. */
export interface ExperimentIdentity {
  experimentId: string;
  workload: Record<string, unknown>;
}

/** One arm's measurements so far: its run (opened in the first round) and every round's timelines. */
export interface ArmProgress {
  run: { runId: string; isStored: boolean } | null;
  settings: Record<string, unknown>;
  timelines: Timeline[];
  /** Each round's first arrival → last finish, summed: the time the arm was under load. */
  busyMs: number;
  numSent: number;
  numOk: number;
  numRejected: number;
}

/**
 * Runs one round of one arm in a fresh in-process runtime built with the arm's settings:
 * warm-up requests first (excluded), then the shared workload, filed under the arm's run (opened
 * in the first round); then the runtime is closed, so every round of every arm starts with the
 * same cold page cache and nothing carries over.
 */
export async function runArmRound(
  config: ExperimentConfig,
  shared: SharedWorkload,
  tokenizer: TextTokenizer,
  identity: ExperimentIdentity,
  index: number,
  progress: ArmProgress | null,
): Promise<ArmProgress> {
  const arm = config.vary.arms[index]!;
  // A variant arm (`name:variant`) opens that variant; the others the one --variant names.
  const armVariant = arm.patch.defaultModel?.split(':')[1] ?? null;
  const host = await startInProcessHost({
    modelDir: config.modelDir,
    variant: armVariant ?? config.variant,
    dataDir: config.dataDir,
    settings: { ...config.base, ...arm.patch },
  });
  try {
    const modelId = host.modelId;
    await warmUp(host, modelId, tokenizer, config.numWarmup, config.seed);
    const facts = host.runtimeFacts();
    const run = progress
      ? progress.run
      : host.createRun(runName(config, arm), runConfig(config, identity, index, facts));
    const runId = run?.runId ?? null;
    const records = await send(host, { ...shared, modelId, runId }, arm.label);
    await reportClientFigures(host, records);
    // A fresh host per round: its timelines are this round's only.
    const round = runId ? host.timelinesOf(runId) : [];
    return {
      run,
      settings: (facts.settings ?? {}) as Record<string, unknown>,
      timelines: [...(progress?.timelines ?? []), ...round],
      busyMs: (progress?.busyMs ?? 0) + spanOf(round),
      numSent: (progress?.numSent ?? 0) + records.length,
      numOk: (progress?.numOk ?? 0) + records.filter(isOk).length,
      numRejected: (progress?.numRejected ?? 0) + records.filter((r) => r.seen.httpStatus === 429).length,
    };
  } finally {
    await host.close();
  }
}

/** An arm's result once every round ran: seed 001's summary over all its timelines. */
export function armResultOf(config: ExperimentConfig, index: number, progress: ArmProgress): ArmResult {
  return {
    arm: config.vary.arms[index]!,
    runId: progress.run?.isStored ? progress.run.runId : null,
    settings: progress.settings,
    summary: armSummary(progress.timelines, config.slo, progress.busyMs),
    numSent: progress.numSent,
    numOk: progress.numOk,
    numRejected: progress.numRejected,
  };
}

/** First arrival → last finish of a round's timelines (ms), 0 for none. */
function spanOf(timelines: readonly Timeline[]): number {
  if (timelines.length === 0) return 0;
  return Math.max(...timelines.map((t) => t.finishedAt)) - Math.min(...timelines.map((t) => t.arrivedAt));
}

function runName(config: ExperimentConfig, arm: Arm): string {
  return `experiment ${arm.label} (${config.vary.arms.map((a) => a.value).join(' vs ')})`;
}

function runConfig(config: ExperimentConfig, identity: ExperimentIdentity, index: number, facts: object) {
  return {
    ...facts,
    workload: identity.workload,
    experiment: {
      experimentId: identity.experimentId,
      vary: config.vary.name,
      value: config.vary.arms[index]!.value,
      armIndex: index,
      numArms: config.vary.arms.length,
    },
  };
}

/** Sends the arm's requests from the client worker, with a progress bar on stderr. */
async function send(host: LoadHost, input: Parameters<typeof runPhaseInWorker>[1], label: string) {
  const bar = new ProgressBar(label, input.plan.length);
  const records = await runPhaseInWorker(host.target, input, () => bar.tick(''));
  bar.done();
  return records;
}

/** One request at a time until the slot is loaded and the first-run costs are paid; nothing is kept. */
async function warmUp(
  host: LoadHost,
  modelId: string,
  tokenizer: TextTokenizer,
  count: number,
  seed: number,
): Promise<void> {
  if (count === 0) return;
  const plan = planRequests({
    count,
    multiTurnShare: 0,
    maxTurns: 1,
    lengths: independentPairs(
      lengthSampler({ kind: 'fixed', numTokens: 32 }),
      lengthSampler({ kind: 'fixed', numTokens: 8 }),
    ),
    uniform: prng(seed + 99),
    tag: `warmup-${seed}`,
    seedBase: 7_000_000 + seed,
  });
  const texts = plan.map((p) => promptOfTokens(tokenizer, p.numUserTokens, p.textSeed));
  await runPhaseInWorker(
    host.target,
    { plan, texts, arrivals: { kind: 'closed', groupSize: 1 }, modelId, runId: null },
    () => undefined,
  );
}

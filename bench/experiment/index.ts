/**
 * `npm run bench -- experiment --vary SETTING=A,B …`: seed 001's experiment for any runtime
 * setting. The same arrivals and lengths are replayed under each value, each arm in a fresh
 * in-process runtime and stored as its own run; the report is seed 001's tables (TTFT parts as
 * means that sum to the mean, totals as percentiles, queue share, preemptions, wasted prefill).
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { loadModelFolder } from '../../src-main/runtime/model/load-folder';
import { BOUNDARIES } from '../../src-main/telemetry/report/types';
import type { ExperimentConfig } from './args';
import { EXPERIMENT_USAGE, parseExperimentArgs } from './args';
import type { ArmProgress, ArmResult, ExperimentIdentity } from './arm';
import { armResultOf, runArmRound } from './arm';
import { armRatios, tableLines } from './table';
import { describeWorkload, sharedWorkload } from './workload';
import { print, printError } from '../../src-main/printable';

/** Entry point for `npm run bench -- experiment`. */
export async function run(argv: string[]): Promise<number> {
  let config: ExperimentConfig;
  try {
    config = parseExperimentArgs(argv);
  } catch (error) {
    printError(`${(error as Error).message}\n${EXPERIMENT_USAGE}`);
    return 2;
  }
  const folder = await loadModelFolder(config.modelDir);
  const shared = await sharedWorkload(config, folder.tokenizer);
  const identity = { experimentId: randomUUID(), workload: describeWorkload(config, shared.plan.length) };
  // Rounds interleave the arms (A B A B …) so drift on a shared machine lands on every arm alike.
  const progress: (ArmProgress | null)[] = config.vary.arms.map(() => null);
  for (let round = 0; round < config.numRounds; round++)
    for (let i = 0; i < config.vary.arms.length; i++)
      progress[i] = await runArmRound(config, shared, folder.tokenizer, identity, i, progress[i] ?? null);
  const arms: ArmResult[] = progress.map((p, i) => armResultOf(config, i, p!));
  const report = reportOf(config, identity, arms);
  if (config.isJson) print(JSON.stringify(report, null, 2));
  else
    print(
      [
        `experiment ${identity.experimentId} — vary ${config.vary.name} over ${config.vary.arms.map((a) => a.value).join(', ')}`,
        `workload: ${JSON.stringify(identity.workload)}`,
        `machine: ${os.availableParallelism()} cores, load average ${os.loadavg()[0]!.toFixed(2)}`,
        `boundary: ${BOUNDARIES.ttft}; statistic: means for parts, nearest-rank percentiles for totals`,
        `runs: ${arms.map((a) => `${a.arm.label} ${a.runId ?? '(not stored)'}`).join(', ')}`,
        '',
        ...tableLines(arms),
      ].join('\n'),
    );
  return 0;
}

function reportOf(config: ExperimentConfig, identity: ExperimentIdentity, arms: readonly ArmResult[]) {
  return {
    benchmark: 'experiment',
    ...identity,
    vary: { setting: config.vary.name, values: config.vary.arms.map((a) => a.value) },
    boundary: { server: BOUNDARIES.ttft, client_ttft: BOUNDARIES.clientTtft },
    statistic: 'TTFT parts as means (they sum to the mean TTFT); totals as nearest-rank percentiles',
    machine: { cpus: os.availableParallelism(), loadavg_1m: Number(os.loadavg()[0]!.toFixed(2)) },
    arms: arms.map((a) => ({
      arm: a.arm.label,
      value: a.arm.value,
      run_id: a.runId,
      settings: a.settings,
      num_sent: a.numSent,
      num_ok: a.numOk,
      num_rejected: a.numRejected,
      ...a.summary,
    })),
    ratios: armRatios(arms),
  };
}

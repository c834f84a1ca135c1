import { randomUUID } from 'node:crypto';
import { collectGeneration } from '../runtime/collect';
import { SETTINGS } from '../runtime/settings/declaration';
import { parseSettingValue } from '../runtime/settings/flags';
import type { Runtime } from '../runtime/runtime';
import type { SettingKey } from '../runtime/settings/declaration';
import type { SettingsPatch } from '../runtime/settings/schema';
import { reasonOf } from '../telemetry/log/log';
import { prng } from '../telemetry/synthetic/workload';
import type { CoreDeps } from './core-deps';
import { runName } from './run-name';
import { modelRevisionsOf } from './run-models';

/** What the Bench view asks to vary, and the workload every arm replays. */
export interface ExperimentSpec {
  setting: SettingKey;
  /** Values as the setting's flag reads them (`2`, `off`, `auto`, a model reference…). */
  values: string[];
  numRequests: number;
  /** Bursts of this many (the next when the last finished), or Poisson at ratePerS. */
  burstSize: number | null;
  ratePerS: number | null;
}

const QUESTIONS = [
  'Tell me about the ball at Netherfield.',
  'Write a short letter to your sister about the weather.',
  'What did Mr. Darcy say when he first saw Elizabeth?',
  'Describe a walk in the garden after the rain.',
];
const OUTPUT_TOKENS = 32;
const IDLE_WAIT_MS = 60_000;

/** Each arm's settings patch; throws naming the setting and value when one does not parse. */
export function armPatches(spec: ExperimentSpec): SettingsPatch[] {
  return spec.values.map((value) => ({ [spec.setting]: parseSettingValue(spec.setting, value) }));
}

/**
 * Seed 001's experiment inside the app: for each value, the runtime is reconfigured (waiting
 * for it to be idle), warmed with one request, and the same workload (same questions, same
 * arrival offsets, fixed output lengths) is replayed into a run of its own, tagged with the
 * experiment. The settings the user had are restored at the end, whatever happened.
 */
export async function runExperiment(
  deps: CoreDeps,
  spec: ExperimentSpec,
  onProgress: (numDone: number, numTotal: number, label: string) => void,
): Promise<string[]> {
  const { runtime } = deps;
  const original = runtime.settings;
  const patches = armPatches(spec);
  const experimentId = randomUUID();
  const offsetsMs = arrivalOffsets(spec);
  const workload = {
    arrivals: spec.burstSize ? `bursts of ${spec.burstSize}` : `Poisson at ${spec.ratePerS}/s`,
    requests: spec.numRequests,
    output_tokens: OUTPUT_TOKENS,
    seed: 1,
  };
  const runIds: string[] = [];
  let numDone = 0;
  try {
    for (const [armIndex, patch] of patches.entries()) {
      const value = spec.values[armIndex]!;
      await untilIdle(runtime);
      await runtime.reconfigure({ ...original, ...patch });
      const modelId = runtime.defaultModelId();
      if (!modelId) throw new Error('no model to run the experiment on');
      await ask(runtime, null, modelId, 'Good morning.');
      const run = deps.history.runs.create({
        name: runName(
          `Experiment: ${SETTINGS[spec.setting].label.toLowerCase()} ${value}`,
          modelId,
          deps.clock.wallNow(),
        ),
        config: {
          settings: runtime.settings,
          modelRevisions: modelRevisionsOf(runtime, modelId),
          workload,
          experiment: { experimentId, vary: spec.setting, value, armIndex, numArms: patches.length },
        },
      });
      await replay(runtime, run.runId, modelId, spec, offsetsMs, () =>
        onProgress(++numDone, spec.numRequests * patches.length, `${spec.setting}=${value}`),
      );
      runIds.push(run.runId);
    }
  } finally {
    await restoreSettings(deps, original);
  }
  return runIds;
}

/**
 * Puts back the settings the user had once the last arm's requests are done. If the runtime
 * stays busy or refuses them, the experiment's own outcome still stands (its error is the one
 * its caller hears) and the log says which settings are left in place and why.
 */
async function restoreSettings(deps: CoreDeps, original: SettingsPatch): Promise<void> {
  try {
    await untilIdle(deps.runtime);
    await deps.runtime.reconfigure(original);
  } catch (error) {
    deps.log.warn(
      'bench',
      `the experiment could not put your settings back (${reasonOf(error)}); the last arm's are still in use: set them again in Settings`,
    );
  }
}

/** Arrival offsets (ms) every arm replays: seeded Poisson gaps, or none for bursts. */
function arrivalOffsets(spec: ExperimentSpec): number[] {
  if (spec.burstSize) return [];
  const uniform = prng(1);
  const gapMs = 1000 / (spec.ratePerS ?? 1);
  let at = 0;
  return Array.from({ length: spec.numRequests }, () => {
    const offset = at;
    at += -Math.log(1 - uniform()) * gapMs;
    return offset;
  });
}

async function replay(
  runtime: Runtime,
  runId: string,
  modelId: string,
  spec: ExperimentSpec,
  offsetsMs: readonly number[],
  onDone: () => void,
): Promise<void> {
  const one = (i: number) =>
    ask(runtime, runId, modelId, `${QUESTIONS[i % QUESTIONS.length]} (${i})`).then(onDone);
  if (spec.burstSize) {
    for (let i = 0; i < spec.numRequests; i += spec.burstSize)
      await Promise.all(
        Array.from({ length: Math.min(spec.burstSize, spec.numRequests - i) }, (_, k) => one(i + k)),
      );
    return;
  }
  const startAt = performance.now();
  await Promise.all(
    offsetsMs.map(async (offset, i) => {
      const delay = startAt + offset - performance.now();
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      await one(i);
    }),
  );
}

async function ask(runtime: Runtime, runId: string | null, modelId: string, content: string): Promise<void> {
  await collectGeneration(runtime, {
    requestId: randomUUID(),
    runId,
    modelId,
    prompt: { kind: 'chat', messages: [{ role: 'user', content }] },
    maxTokens: OUTPUT_TOKENS,
    ignoreEos: true,
    temperature: 0,
  });
}

/** Waits until nothing runs (a chat may be answering); gives up after a minute with the reason. */
async function untilIdle(runtime: Runtime): Promise<void> {
  const startedAt = performance.now();
  for (let reason = runtime.busyReason(); reason; reason = runtime.busyReason()) {
    if (performance.now() - startedAt > IDLE_WAIT_MS) throw new Error(`the runtime stayed busy: ${reason}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

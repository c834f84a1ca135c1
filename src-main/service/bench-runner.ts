import { randomUUID } from 'node:crypto';
import { collectGeneration } from '../runtime/collect';
import type { CoreDeps } from './core-deps';
import type { MethodInput } from './contract/methods';
import { ServiceFailure } from './contract/result';
import { armPatches, runExperiment } from './bench-experiment';
import type { ExperimentSpec } from './bench-experiment';
import { runName } from './run-name';
import { modelRevisionsOf } from './run-models';

const PROMPTS = [
  'Tell me about the ball at Netherfield.',
  'Write a short letter to your sister about the weather.',
  'What did Mr. Darcy say when he first saw Elizabeth?',
  'Describe a walk in the garden after the rain.',
];

/**
 * Benchmarks started from the UI, run through the app's own runtime so their timelines are
 * ordinary ones: stored under a new run, shown live, comparable in the Runs view.
 */
export function startBench(deps: CoreDeps, input: MethodInput<'bench.start'>): { benchId: string } {
  const benchId = randomUUID();
  if (input.kind === 'experiment') return startExperiment(deps, benchId, input);
  const modelId = deps.runtime.defaultModelId();
  const run = deps.history.runs.create({
    name: runName(
      input.kind === 'first-frame' ? 'First-frame benchmark' : 'Load test',
      modelId,
      deps.clock.wallNow(),
    ),
    config: {
      workload: { ...input },
      settings: deps.runtime.settings,
      modelRevisions: modelRevisionsOf(deps.runtime, modelId),
    },
  });
  const work =
    input.kind === 'first-frame'
      ? firstFrame(deps, run.runId, benchId, input.numRuns ?? 5)
      : loadReplay(deps, run.runId, benchId, input.numRequests ?? 20, input.ratePerS ?? 2);
  work.then(
    () => {
      // "Done" means stored: a comparison opened at once must find every timeline of the run.
      deps.history.writer.flush();
      deps.hub.emit('bench.done', {
        benchId,
        runId: deps.history.isPersistent ? run.runId : null,
        error: null,
      });
    },
    (error: Error) => deps.hub.emit('bench.done', { benchId, runId: null, error: error.message }),
  );
  return { benchId };
}

/** An experiment over a setting's values; each arm files its own run (see bench-experiment). */
function startExperiment(
  deps: CoreDeps,
  benchId: string,
  input: MethodInput<'bench.start'>,
): { benchId: string } {
  if (!input.vary) throw new ServiceFailure('invalid_input', 'an experiment needs vary: { setting, values }');
  const spec: ExperimentSpec = {
    setting: input.vary.setting,
    values: input.vary.values,
    numRequests: input.numRequests ?? 16,
    burstSize: input.ratePerS ? null : (input.burstSize ?? 8),
    ratePerS: input.ratePerS ?? null,
  };
  try {
    armPatches(spec);
  } catch (error) {
    throw new ServiceFailure('invalid_input', (error as Error).message);
  }
  runExperiment(deps, spec, (numDone, numTotal, label) =>
    deps.hub.emit('bench.progress', { benchId, numDone, numTotal, label }),
  ).then(
    (runIds) => {
      deps.history.writer.flush();
      deps.hub.emit('bench.done', {
        benchId,
        runId: deps.history.isPersistent ? (runIds[0] ?? null) : null,
        runIds: deps.history.isPersistent ? runIds : [],
        error: null,
      });
    },
    (error: Error) => deps.hub.emit('bench.done', { benchId, runId: null, error: error.message }),
  );
  return { benchId };
}

/** Cold slot, resident slot, then a context-page hit, `numRuns` times each. */
async function firstFrame(deps: CoreDeps, runId: string, benchId: string, numRuns: number): Promise<void> {
  const modelId = deps.runtime.defaultModelId();
  if (!modelId) throw new Error('no model to benchmark');
  const numTotal = numRuns * 3;
  let numDone = 0;
  const step = async (label: string, content: string) => {
    await ask(deps, runId, modelId, content);
    deps.hub.emit('bench.progress', { benchId, numDone: ++numDone, numTotal, label });
  };
  for (let i = 0; i < numRuns; i++) {
    const slot = deps.runtime.slots().find((s) => s.model.modelId === modelId);
    if (slot?.status === 'resident') await deps.runtime.evict(slot.slotId);
    await step('cold slot', `${i}: ${PROMPTS[0]}`);
    await step('resident slot', `${i + 100}: ${PROMPTS[1]}`);
    await step('context page hit', `${PROMPTS[2]} ${PROMPTS[3]} ${PROMPTS[1]} ${PROMPTS[0]} (${i})`);
  }
}

/** Poisson arrivals at `ratePerS` with a fixed seed, all concurrent, through the runtime. */
async function loadReplay(
  deps: CoreDeps,
  runId: string,
  benchId: string,
  numRequests: number,
  ratePerS: number,
): Promise<void> {
  const modelId = deps.runtime.defaultModelId();
  if (!modelId) throw new Error('no model to benchmark');
  let state = 12345;
  const uniform = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) + 1) / 4294967297;
  let numDone = 0;
  const pending: Promise<void>[] = [];
  for (let i = 0; i < numRequests; i++) {
    pending.push(
      ask(deps, runId, modelId, `${PROMPTS[i % PROMPTS.length]} (${i})`).then(() => {
        deps.hub.emit('bench.progress', {
          benchId,
          numDone: ++numDone,
          numTotal: numRequests,
          label: 'load replay',
        });
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, (-Math.log(uniform()) / ratePerS) * 1000));
  }
  await Promise.all(pending);
}

async function ask(deps: CoreDeps, runId: string, modelId: string, content: string): Promise<void> {
  await collectGeneration(deps.runtime, {
    requestId: randomUUID(),
    runId,
    modelId,
    prompt: { kind: 'chat', messages: [{ role: 'user', content }] },
    maxTokens: 32,
    temperature: 0,
  });
}

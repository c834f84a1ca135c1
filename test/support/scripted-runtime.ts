import { Runtime } from '../../src-main/runtime/runtime';
import type { RuntimeOptions } from '../../src-main/runtime/runtime-options';
import type { GenerationRequest } from '../../src-main/runtime/scheduler/request';
import { kvGeometryOf, pageBytes } from '../../src-main/runtime/model/kv-geometry';
import { ManualClock } from '../../src-main/telemetry/clock';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from './models';
import { submitAndTally } from './outcome-tally';
import { ScriptedRunner } from './scripted-runner';
import type { RunnerTimes } from './scripted-runner';

/** The scripted worker's times used by the runtime's unit tests (ms on the manual clock). */
export const SCRIPTED_TIMES: RunnerTimes = {
  loadMs: 100,
  copyMs: 0.5,
  lookupMs: 3,
  prefillMs: 20,
  replyMs: 1,
  decodeMs: 5,
};

/** A runtime on the bundled model whose slots run ScriptedRunners on one ManualClock. */
export interface ScriptedRuntime {
  runtime: Runtime;
  clock: ManualClock;
  /** Every runner created, in order (a reload after a failure makes a new one). */
  runners: ScriptedRunner[];
  /** Bytes of one context page of the bundled model at the runtime's page size. */
  pageBytes: number;
}

/**
 * Builds a runtime whose workers are scripted (no thread, no ONNX Runtime): they capture
 * pages as a real worker does when paging is on, so page and K/V budget arithmetic is real.
 */
export async function scriptedRuntime(
  overrides: Partial<RuntimeOptions> = {},
  times: RunnerTimes = SCRIPTED_TIMES,
  /** Sets up each runner as it is made, before its load (e.g. a load that fails). */
  prepare: (runner: ScriptedRunner) => void = () => undefined,
): Promise<ScriptedRuntime> {
  const clock = new ManualClock();
  const runners: ScriptedRunner[] = [];
  const pages = { pageSize: 0, pageBytes: 0 };
  const runtime = await Runtime.create({
    bundledModelsDir: BUNDLED_MODELS_DIR,
    clock,
    createRunner: () => {
      const runner = new ScriptedRunner(clock, times, pages);
      prepare(runner);
      runners.push(runner);
      return runner;
    },
    ...overrides,
  });
  const model = runtime.catalogue.resolve(BUNDLED_MODEL_ID);
  if (model instanceof Error) throw model;
  pages.pageSize = runtime.options.pageSize;
  pages.pageBytes = pageBytes(kvGeometryOf(model), runtime.options.pageSize);
  return { runtime, clock, runners, pageBytes: pages.pageBytes };
}

let counter = 0;

/** A greedy text request to the bundled model (3 tokens unless overridden). */
export function scriptedRequest(overrides: Partial<GenerationRequest> = {}): GenerationRequest {
  return {
    requestId: `scripted-${++counter}`,
    modelId: BUNDLED_MODEL_ID,
    prompt: { kind: 'text', text: 'It is a truth universally acknowledged' },
    temperature: 0,
    maxTokens: 3,
    ...overrides,
  };
}

/**
 * A warm one-seat slot whose only seat is taken by a request held inside its first decode
 * step: nothing wakes the engine loop until the test resumes that step.
 */
export async function busyScriptedRuntime(overrides: Partial<RuntimeOptions> = {}) {
  const built = await scriptedRuntime({ ...overrides, maxSeats: 1 });
  await built.runtime.prefetch(BUNDLED_MODEL_ID);
  const runner = built.runners[0]!;
  runner.holdNextStepAt('decode');
  const running = submitAndTally(built.runtime, scriptedRequest({ maxTokens: 3 }));
  await runner.whenHeld();
  return { ...built, runner, running };
}

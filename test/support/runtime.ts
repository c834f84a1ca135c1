import { expect } from 'vitest';
import { collectGeneration } from '../../src-main/runtime/collect';
import { Runtime } from '../../src-main/runtime/runtime';
import type { CollectedGeneration } from '../../src-main/runtime/collect';
import type { RuntimeOptions } from '../../src-main/runtime/runtime-options';
import type { GenerationRequest } from '../../src-main/runtime/scheduler/request';
import { checkTimeline } from '../../src-main/telemetry/timeline/check';
import { BUNDLED_MODEL_ID, BUNDLED_MODEL_REF, BUNDLED_MODELS_DIR } from './models';

/** Models folder for runtime integration tests: the bundled model unless overridden for local experiments. */
export const TEST_MODELS_DIR = process.env['FF_TEST_MODELS_DIR'] ?? BUNDLED_MODELS_DIR;
export const TEST_MODEL_ID = process.env['FF_TEST_MODEL_ID'] ?? BUNDLED_MODEL_ID;
/**
 * The test model's default variant id: the bundled one's (fp16 weights), or, for a model named
 * by FF_TEST_MODEL_ID, its file's (`:fp32`), which resolves to that variant whatever its weights.
 */
export const TEST_MODEL_REF =
  TEST_MODEL_ID === BUNDLED_MODEL_ID ? BUNDLED_MODEL_REF : `${TEST_MODEL_ID}:fp32`;

/** A real runtime (worker threads, ONNX Runtime) on the test model folder. */
export function createTestRuntime(overrides: Partial<RuntimeOptions> = {}): Promise<Runtime> {
  return Runtime.create({ bundledModelsDir: TEST_MODELS_DIR, numThreads: 1, ...overrides });
}

let counter = 0;

/** Runs one greedy request to the end and checks its timeline's invariants. */
export async function generate(
  runtime: Runtime,
  request: Partial<GenerationRequest> & Pick<GenerationRequest, 'prompt'>,
): Promise<CollectedGeneration> {
  const result = await collectGeneration(runtime, {
    requestId: `req-${++counter}`,
    modelId: TEST_MODEL_ID,
    temperature: 0,
    maxTokens: 12,
    ...request,
  });
  checkTimeline(result.timeline);
  return result;
}

/** Asserts nothing is left held: no running or waiting sequences, no held pages, no active slot. */
export function expectNothingHeld(runtime: Runtime): void {
  expect(runtime.queueSummary().numRunning).toBe(0);
  expect(runtime.queueSummary().numWaiting).toBe(0);
  expect(runtime.pageSummary().numHeldPages).toBe(0);
  // The registry's own status, not the seat count again: a slot left `active` with no one seated
  // means its seats and its status drifted apart.
  for (const slot of runtime.slots()) expect(slot.status, slot.slotId).not.toBe('active');
}

/** A user turn as a chat prompt. */
export function chat(...contents: string[]) {
  return {
    kind: 'chat' as const,
    messages: contents.map((content, i) => ({
      role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content,
    })),
  };
}

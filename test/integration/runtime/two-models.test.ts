import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../../src-main/runtime/runtime';
import { randomModelsDir } from '../../support/models';
import {
  createTestRuntime,
  expectNothingHeld,
  generate,
  TEST_MODEL_ID,
  TEST_MODEL_REF,
} from '../../support/runtime';

const MODELS = [TEST_MODEL_ID, 'second-model'];
/** Each model's default variant id: the test model's fp16 weights, the random model's fp32. */
const DEFAULT_REFS: Record<string, string> = {
  [TEST_MODEL_ID]: TEST_MODEL_REF,
  'second-model': 'second-model:fp32',
};

const PROMPTS = ['Once upon a time', 'The morning was fine', 'She wrote a letter'];

describe('two models at once', () => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await createTestRuntime({
      userModelsDir: randomModelsDir(['second-model']),
      maxSeats: 2,
      prefillChunkTokens: 4,
    });
  });
  afterAll(() => runtime.close());

  it('never runs a request on the other model’s slot: concurrent outputs equal each model alone', async () => {
    const alone: Record<string, number[][]> = Object.fromEntries(MODELS.map((m) => [m, []]));
    for (const modelId of MODELS)
      for (const text of PROMPTS)
        alone[modelId]!.push(
          (await generate(runtime, { modelId, prompt: { kind: 'text', text }, maxTokens: 10 })).tokenIds,
        );
    expect(alone[MODELS[0]!]).not.toEqual(alone[MODELS[1]!]);
    const mixed = await Promise.all(
      PROMPTS.flatMap((text, i) =>
        MODELS.map(async (modelId) => ({
          modelId,
          i,
          result: await generate(runtime, { modelId, prompt: { kind: 'text', text }, maxTokens: 10 }),
        })),
      ),
    );
    for (const { modelId, i, result } of mixed) {
      expect(result.tokenIds).toEqual(alone[modelId]![i]);
      // A bare name resolves to the folder's default variant, the one recorded and slotted.
      expect(result.timeline.slotId).toBe(`slot-${DEFAULT_REFS[modelId]}`);
      expect(result.timeline.modelId).toBe(DEFAULT_REFS[modelId]);
    }
    expect(
      runtime
        .slots()
        .map((s) => s.status)
        .sort(),
    ).toEqual(['resident', 'resident']);
    expectNothingHeld(runtime);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Runtime } from '../../../src-main/runtime/runtime';
import { randomModelsDir } from '../../support/models';
import { expectNothingHeld, generate } from '../../support/runtime';

// Two small models of one shape: a 4-token page is 2 layers × (K, V) × 2 heads × 4 × 16 × 4 B.
const PAGE_BYTES = 2 * 2 * 2 * 4 * 16 * 4;
const PROMPTS = ['Once upon a time there', 'The morning was fine and', 'She wrote a letter to'];
const ask = (modelId: string, text: string) => ({
  modelId,
  prompt: { kind: 'text' as const, text },
  maxTokens: 40,
  ignoreEos: true,
});

describe('preemption under one K/V budget shared by two slots', () => {
  let ample: Runtime;
  let tight: Runtime;
  beforeAll(async () => {
    const modelsDir = randomModelsDir(['rev-a', 'rev-b']);
    const options = {
      bundledModelsDir: modelsDir,
      numThreads: 1,
      pageSize: 4,
      prefillChunkTokens: 4,
      maxSeats: 4,
    };
    ample = await Runtime.create(options);
    tight = await Runtime.create({ ...options, kvBudgetBytes: PAGE_BYTES * 24 });
  });
  afterAll(async () => {
    await tight.close();
    await ample.close();
  });

  it('takes victims from the other slot instead of cutting a sequence short that could have grown', async () => {
    const expected = new Map<string, number[]>();
    for (const [modelId, text] of [...PROMPTS.map((t) => ['rev-a', t]), ['rev-b', PROMPTS[0]!]] as const)
      expected.set(`${modelId} ${text}`, (await generate(ample, ask(modelId, text))).tokenIds);
    const results = await Promise.all([
      ...PROMPTS.map(async (text) => ({
        key: `rev-a ${text}`,
        result: await generate(tight, ask('rev-a', text)),
      })),
      (async () => ({
        key: `rev-b ${PROMPTS[0]}`,
        result: await generate(tight, ask('rev-b', PROMPTS[0]!)),
      }))(),
    ]);
    for (const { key, result } of results) {
      expect(result.errorMessage, key).toBeNull();
      expect(result.timeline.numOutputTokens, key).toBe(40);
      expect(result.tokenIds, key).toEqual(expected.get(key));
    }
    const numPreemptions = results.reduce((sum, r) => sum + r.result.timeline.numPreemptions, 0);
    console.log(`${numPreemptions} preemptions across the two slots`);
    expect(numPreemptions).toBeGreaterThan(0);
    expectNothingHeld(tight);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../../src-main/runtime/runtime';
import { createTestRuntime, expectNothingHeld, generate, TEST_MODEL_ID } from '../../support/runtime';
import { modelForms } from '../../support/models';

const PROMPTS = [
  'Once upon a time there was a girl who lived',
  'My dear Mr. Bennet, said his lady to him one day',
  'The morning was fine and the garden',
  'Emma Woodhouse, handsome, clever, and rich',
];

describe.each(modelForms())('preemption when the K/V budget runs out ($form graphs)', (form) => {
  let tight: Runtime;
  let ample: Runtime;
  beforeAll(async () => {
    ample = await createTestRuntime({
      bundledModelsDir: form.modelsDir,
      canFuseAtLoad: form.canFuseAtLoad,
      isPaging: false,
      maxSeats: 4,
      prefillChunkTokens: 4,
    });
    const pageBytes = pageBytesOf(ample);
    tight = await createTestRuntime({
      bundledModelsDir: form.modelsDir,
      canFuseAtLoad: form.canFuseAtLoad,
      isPaging: true,
      pageSize: 4,
      maxSeats: 4,
      prefillChunkTokens: 4,
      kvBudgetBytes: pageBytes * 14,
    });
  });
  afterAll(async () => {
    await tight.close();
    await ample.close();
  });

  it('sends sequences back to the queue, recomputes them and still gives the same greedy tokens', async () => {
    const expected: number[][] = [];
    for (const text of PROMPTS)
      expected.push(
        (await generate(ample, { prompt: { kind: 'text', text }, maxTokens: 24, ignoreEos: true })).tokenIds,
      );
    const results = await Promise.all(
      PROMPTS.map((text) =>
        generate(tight, { prompt: { kind: 'text', text }, maxTokens: 24, ignoreEos: true }),
      ),
    );
    results.forEach((result, i) => expect(result.tokenIds).toEqual(expected[i]));
    const numPreemptions = results.reduce((sum, r) => sum + r.timeline.numPreemptions, 0);
    expect(numPreemptions).toBeGreaterThan(0);
    expectNothingHeld(tight);
  });

  it('measures requeue and lost prefill when a preemption lands before the first token', async () => {
    const results = await Promise.all(
      PROMPTS.map((text) =>
        generate(tight, {
          prompt: { kind: 'text', text: `${text} ${text}` },
          maxTokens: 16,
          ignoreEos: true,
        }),
      ),
    );
    const early = results.filter((r) => r.timeline.parts.requeue > 0);
    expect(early.length).toBeGreaterThan(0);
    for (const result of early) expect(result.timeline.parts.lostPrefill).toBeGreaterThan(0);
    expectNothingHeld(tight);
  });
});

/** Bytes of one 4-token page of the test model: every layer's key and value, float32. */
function pageBytesOf(runtime: Runtime): number {
  const entry = runtime.catalogue.entryOf(TEST_MODEL_ID);
  if (entry?.status !== 'ok') throw new Error('test model did not load');
  const { numLayers, numKvHeads, headDim } = entry.model.folder.shape;
  return numLayers * 2 * numKvHeads * 4 * headDim * 4;
}

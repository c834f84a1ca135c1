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
  // The tight runtime's budget in 4-token pages: one sequence fits with room to spare, two
  // growing ones do not. The fused graph runs the bound path, whose buffer rows count besides
  // the pages.
  const TIGHT_PAGES = form.form === 'fused' ? 28 : 14;
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
      kvBudgetBytes: pageBytes * TIGHT_PAGES,
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
    const allocated = await watchAllocatedBytes(tight);
    const results = await Promise.all(
      PROMPTS.map((text) =>
        generate(tight, { prompt: { kind: 'text', text }, maxTokens: 24, ignoreEos: true }),
      ),
    );
    results.forEach((result, i) => expect(result.tokenIds).toEqual(expected[i]));
    const numPreemptions = results.reduce((sum, r) => sum + r.timeline.numPreemptions, 0);
    expect(numPreemptions).toBeGreaterThan(0);
    expect(allocated.length).toBeGreaterThan(0);
    expect(Math.max(...allocated)).toBeLessThanOrEqual(pageBytesOf(tight) * TIGHT_PAGES);
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

/**
 * After every step reply of the runtime's one slot: the bytes its K/V really allocates, the
 * RAM pages' plus the slot's K/V buffer (the bound path's; none on onnxruntime-node's).
 */
async function watchAllocatedBytes(runtime: Runtime): Promise<number[]> {
  await generate(runtime, { prompt: { kind: 'text', text: 'Hello' }, maxTokens: 1 });
  const [slot] = runtime.registry.list();
  const runner = slot?.runner;
  if (!runner) throw new Error('the test model has no slot');
  const samples: number[] = [];
  const step = runner.step.bind(runner);
  runner.step = async (job) => {
    const reply = await step(job);
    samples.push((runtime.pages?.bytes ?? 0) + (reply.kvBytes ?? 0));
    return reply;
  };
  return samples;
}

/** Bytes of one 4-token page of the test model: every layer's key and value, float32. */
function pageBytesOf(runtime: Runtime): number {
  const entry = runtime.catalogue.entryOf(TEST_MODEL_ID);
  if (entry?.status !== 'ok') throw new Error('test model did not load');
  const { numLayers, numKvHeads, headDim } = entry.model.folder.shape;
  return numLayers * 2 * numKvHeads * 4 * headDim * 4;
}

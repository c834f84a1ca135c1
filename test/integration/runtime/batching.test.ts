import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../../src-main/runtime/runtime';
import { collectGeneration } from '../../../src-main/runtime/collect';
import { checkTimeline } from '../../../src-main/telemetry/timeline/check';
import { createTestRuntime, expectNothingHeld, generate, TEST_MODEL_ID } from '../../support/runtime';
import { modelForms } from '../../support/models';

const PROMPTS = [
  'Once upon a time',
  'My dear Mr. Bennet, said his lady to him one day,',
  'The morning was fine',
  'Emma Woodhouse, handsome, clever, and rich,',
];

describe.each(modelForms())('continuous batching ($form graphs)', ({ modelsDir, canFuseAtLoad }) => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await createTestRuntime({
      bundledModelsDir: modelsDir,
      canFuseAtLoad,
      isPaging: false,
      maxSeats: 4,
      prefillChunkTokens: 8,
    });
  });
  afterAll(() => runtime.close());

  it('gives each sequence the same greedy tokens batched with others as alone', async () => {
    const alone: number[][] = [];
    for (const text of PROMPTS)
      alone.push((await generate(runtime, { prompt: { kind: 'text', text }, maxTokens: 20 })).tokenIds);
    const batched = await Promise.all(
      PROMPTS.map((text, i) => generate(runtime, { prompt: { kind: 'text', text }, maxTokens: 20 - i * 3 })),
    );
    batched.forEach((result, i) => expect(result.tokenIds).toEqual(alone[i]!.slice(0, 20 - i * 3)));
    expectNothingHeld(runtime);
  });

  it('lets sequences join and leave between steps without disturbing the others', async () => {
    // The late request joins once the long one is decoding (after its third token).
    let numLongChunks = 0;
    let joinNow: () => void = () => undefined;
    const isDecoding = new Promise<void>((resolve) => (joinNow = resolve));
    const long = collectGeneration(
      runtime,
      {
        requestId: 'long',
        modelId: TEST_MODEL_ID,
        prompt: { kind: 'text', text: PROMPTS[0]! },
        maxTokens: 30,
        temperature: 0,
      },
      () => {
        if (++numLongChunks === 3) joinNow();
      },
    );
    await isDecoding;
    const late = await generate(runtime, { prompt: { kind: 'text', text: PROMPTS[1]! }, maxTokens: 5 });
    const longResult = await long;
    checkTimeline(longResult.timeline);
    const longAlone = await generate(runtime, { prompt: { kind: 'text', text: PROMPTS[0]! }, maxTokens: 30 });
    const lateAlone = await generate(runtime, { prompt: { kind: 'text', text: PROMPTS[1]! }, maxTokens: 5 });
    expect(longResult.tokenIds).toEqual(longAlone.tokenIds);
    expect(late.tokenIds).toEqual(lateAlone.tokenIds);
  });
});

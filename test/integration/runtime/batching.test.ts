import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../../src-main/runtime';
import { createTestRuntime, expectNothingHeld, generate } from '../../support/runtime';

const PROMPTS = [
  'Once upon a time',
  'My dear Mr. Bennet, said his lady to him one day,',
  'The morning was fine',
  'Emma Woodhouse, handsome, clever, and rich,',
];

describe('continuous batching', () => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await createTestRuntime({ isPaging: false, maxSeats: 4, prefillChunkTokens: 8 });
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
    const long = generate(runtime, { prompt: { kind: 'text', text: PROMPTS[0]! }, maxTokens: 30 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const late = await generate(runtime, { prompt: { kind: 'text', text: PROMPTS[1]! }, maxTokens: 5 });
    const longResult = await long;
    const longAlone = await generate(runtime, { prompt: { kind: 'text', text: PROMPTS[0]! }, maxTokens: 30 });
    const lateAlone = await generate(runtime, { prompt: { kind: 'text', text: PROMPTS[1]! }, maxTokens: 5 });
    expect(longResult.tokenIds).toEqual(longAlone.tokenIds);
    expect(late.tokenIds).toEqual(lateAlone.tokenIds);
  });
});

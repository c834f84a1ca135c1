import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../../src-main/runtime/runtime';
import type { ChatTurn } from '../../../src-main/runtime/tokenize/tokenizer';
import { createTestRuntime, expectNothingHeld, generate } from '../../support/runtime';
import { modelForms } from '../../support/models';

const WORDS = [
  'the',
  'letter',
  'came',
  'from',
  'Bath',
  'and',
  'she',
  'smiled',
  'at',
  'Mr.',
  'Darcy',
  'while',
  'walking',
  'home',
  'in',
  'rain',
  'today',
  'very',
  'kind',
  'indeed',
];

/** Plays a multi-turn chat: each turn's answer is generated and appended to the history. */
async function playConversation(runtime: Runtime, userTurns: string[]): Promise<number[][]> {
  const history: ChatTurn[] = [];
  const answers: number[][] = [];
  for (const content of userTurns) {
    history.push({ role: 'user', content });
    const result = await generate(runtime, {
      prompt: { kind: 'chat', messages: [...history] },
      maxTokens: 6,
    });
    answers.push(result.tokenIds);
    history.push({ role: 'assistant', content: result.text });
  }
  return answers;
}

describe.each(modelForms())('context pages ($form graphs)', ({ modelsDir, canFuseAtLoad }) => {
  let paged: Runtime;
  let unpaged: Runtime;
  beforeAll(async () => {
    paged = await createTestRuntime({
      bundledModelsDir: modelsDir,
      canFuseAtLoad,
      isPaging: true,
      pageSize: 16,
      prefillChunkTokens: 32,
    });
    unpaged = await createTestRuntime({
      bundledModelsDir: modelsDir,
      canFuseAtLoad,
      isPaging: false,
      prefillChunkTokens: null,
    });
  });
  afterAll(async () => {
    await paged.close();
    await unpaged.close();
  });

  it('gives greedy output equal token for token with paging on and off over random multi-turn chats', async () => {
    const turn = fc.array(fc.constantFrom(...WORDS), { minLength: 3, maxLength: 24 }).map((w) => w.join(' '));
    await fc.assert(
      fc.asyncProperty(fc.array(turn, { minLength: 2, maxLength: 4 }), async (turns) => {
        const withPages = await playConversation(paged, turns);
        const withoutPages = await playConversation(unpaged, turns);
        expect(withPages).toEqual(withoutPages);
      }),
      { numRuns: 12, seed: 20261129 },
    );
    expect(paged.pageSummary().numHitTokens).toBeGreaterThan(0);
    // Next turns started from the worker's retained past, not a copy of the pages.
    expect(paged.pageSummary().numRetainedPastHits).toBeGreaterThan(0);
    expectNothingHeld(paged);
  });

  it('finds the whole history of a chat cached on its next turn and prefills only the new tokens', async () => {
    const first = await generate(paged, {
      prompt: {
        kind: 'chat',
        messages: [
          {
            role: 'user',
            content: 'Tell me about the ball at Netherfield and who danced with whom that evening.',
          },
        ],
      },
      maxTokens: 20,
    });
    const second = await generate(paged, {
      prompt: {
        kind: 'chat',
        messages: [
          {
            role: 'user',
            content: 'Tell me about the ball at Netherfield and who danced with whom that evening.',
          },
          { role: 'assistant', content: first.text },
          { role: 'user', content: 'And then?' },
        ],
      },
      maxTokens: 4,
    });
    const cached = second.timeline.numCachedTokens;
    expect(cached).toBeGreaterThan(first.timeline.numPromptTokens - 16);
    expect(cached).toBeLessThan(second.timeline.numPromptTokens);
    expectNothingHeld(paged);
  });
});

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PROMPT_LIMITS } from '../../../src-main/limits';
import type { Runtime } from '../../../src-main/runtime/runtime';
import { rawPrompt } from '../../../src-main/runtime/tokenize/chat-literals';
import { readTokenizerFiles } from '../../../src-main/runtime/tokenize/tokenizer-files';
import { TextTokenizer } from '../../../src-main/runtime/tokenize/tokenizer';
import type { CatalogueModel } from '../../../src-main/runtime/model/catalogue';
import { TokenizerThread } from '../../../src-main/runtime/tokenize/tokenizer-thread';
import { createTestRuntime, expectNothingHeld, generate, TEST_MODEL_ID } from '../../support/runtime';

const SENTENCE = 'It is a truth universally acknowledged, that a single man must be in want of a wife. ';
const textOf = (numChars: number) =>
  SENTENCE.repeat(Math.ceil(numChars / SENTENCE.length)).slice(0, numChars);
/** Text no earlier prompt shares chunks with (the tokenizer caches repeated text: it would not wait). */
const freshTextOf = (numChars: number, salt: string) => {
  const words = SENTENCE.toLowerCase().replace(/[.,]/g, '').trim().split(' ');
  let state = [...salt].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0, 2166136261);
  let text = salt;
  while (text.length < numChars) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    text += ` ${words[state % words.length]}`;
  }
  return text.slice(0, numChars);
};

describe('long prompts', () => {
  let runtime: Runtime;
  let model: CatalogueModel;
  beforeAll(async () => {
    runtime = await createTestRuntime({
      maxPromptTokens: 2_000,
      maxOutputTokens: 64,
      defaultMaxTokens: 4,
      maxQueue: 8,
      defaultDeadlineMs: null,
    });
    const resolved = runtime.catalogue.resolve(TEST_MODEL_ID);
    if (resolved instanceof Error) throw resolved;
    model = resolved;
  });
  afterAll(() => runtime.close());

  it('tokenizes in its thread to exactly the ids the serving thread would make', async () => {
    const thread = new TokenizerThread();
    try {
      const specials = `${model.folder.tokenizer.bosToken ?? ''}${model.folder.tokenizer.eosToken ?? ''}`;
      for (const text of [
        textOf(10_000),
        `« Émilie »  ${specials} naïve\r\n\ttabs — 東京 🎉 ${textOf(5_000)}`,
      ])
        expect(await thread.encode(model, rawPrompt(text))).toEqual(
          model.folder.tokenizer.encodePrompt(rawPrompt(text)),
        );
    } finally {
      await thread.close();
    }
  });

  it('warms its thread on the slot load, then encodes a long prompt to the ids a fresh tokenizer makes', async () => {
    const thread = new TokenizerThread();
    try {
      thread.warm(model);
      const text = freshTextOf(PROMPT_LIMITS.inlineTokenizeChars * 2, 'Warmed');
      // A fresh instance (a restart's): nothing the warm-up or an earlier test encoded is in its cache.
      const fresh = new TextTokenizer(readTokenizerFiles(model.folder.folder));
      expect(await thread.encode(model, rawPrompt(text))).toEqual(fresh.encodePrompt(rawPrompt(text)));
    } finally {
      await thread.close();
    }
  });

  it('runs a prompt longer than the inline threshold with the same prompt tokens as inline encoding', async () => {
    const text = textOf(PROMPT_LIMITS.inlineTokenizeChars + 1_000);
    const result = await generate(runtime, { prompt: { kind: 'text', text } });
    expect(result.timeline.finishReason).toBe('length');
    expect(result.timeline.numPromptTokens).toBe(model.folder.tokenizer.encode(text).length);
    expectNothingHeld(runtime);
  });

  it('plans a long chat in the tokenizer thread: the serving thread encodes no long text, the ids are the same', async () => {
    // Text no earlier test encoded: what the tokenizer's cache holds is encoded inline by design.
    const messages = [
      { role: 'user' as const, content: freshTextOf(PROMPT_LIMITS.inlineTokenizeChars, 'Planned') },
      { role: 'assistant' as const, content: freshTextOf(500, 'Answered') },
      { role: 'user' as const, content: 'And then?' },
    ];
    const encode = vi.spyOn(model.folder.tokenizer, 'encodePrompt');
    try {
      const plan = await runtime.planChat({ modelId: TEST_MODEL_ID, messages, overflow: 'drop-oldest' });
      const encodedHere = encode.mock.calls.map(([prompt]) => prompt.text.length);
      encode.mockRestore();
      expect(encodedHere.every((numChars) => numChars <= PROMPT_LIMITS.inlineTokenizeChars)).toBe(true);
      expect(plan.refusal).toBeNull();
      expect(plan.numDroppedMessages).toBe(0);
      const inline = model.folder.tokenizer.encodePrompt(model.folder.tokenizer.renderChat(messages));
      expect(plan.numPromptTokens).toBe(inline.length);
    } finally {
      encode.mockRestore();
    }
  });

  it('refuses a prompt over the character bound without tokenizing it', async () => {
    const maxChars = 2_000 * PROMPT_LIMITS.maxCharsPerToken;
    const startAt = performance.now();
    const result = await generate(runtime, { prompt: { kind: 'text', text: textOf(maxChars + 1) } });
    console.log(
      `a ${maxChars + 1}-character prompt was refused in ${(performance.now() - startAt).toFixed(1)} ms`,
    );
    expect(result.errorCode).toBe('invalid_input');
    expect(result.errorMessage).toBe(
      `prompt is ${(maxChars + 1).toLocaleString('en-US')} characters; at most ${maxChars.toLocaleString('en-US')} can fit in the 2000-token limit, so it was refused without tokenizing`,
    );
    expectNothingHeld(runtime);
  });

  it('refuses a chat of more messages than the token limit can hold without rendering it', async () => {
    // 30,000 one-character messages: well inside the character bound, ~0.3 s of template work.
    const messages = Array.from({ length: 30_000 }, () => ({ role: 'user' as const, content: 'x' }));
    const render = vi.spyOn(model.folder.tokenizer, 'renderChat');
    try {
      const result = await generate(runtime, { prompt: { kind: 'chat', messages } });
      expect(render).not.toHaveBeenCalled();
      expect(result.errorCode).toBe('invalid_input');
      const limit = Math.min(2_000, model.folder.shape.maxPositions);
      expect(result.errorMessage).toBe(
        `the chat has 30,000 messages; at most ${limit.toLocaleString('en-US')} can fit in ${limit} tokens (each message takes at least one), so it was refused without rendering`,
      );
    } finally {
      render.mockRestore();
    }
    expectNothingHeld(runtime);
  });

  it('names the token limit when a long prompt within the character bound has too many tokens', async () => {
    const result = await generate(runtime, { prompt: { kind: 'text', text: textOf(20_000) } });
    expect(result.errorMessage).toMatch(/^prompt is \d+ tokens; the limit is 2000$/);
    expectNothingHeld(runtime);
  });

  it('cancels a request while its prompt is being tokenized, leaving nothing waiting', async () => {
    const pending = generate(runtime, {
      requestId: 'cancel-while-tokenizing',
      prompt: { kind: 'text', text: freshTextOf(30_000, 'Cancelled') },
    });
    expect(runtime.queueSummary().numWaiting).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(runtime.cancel('cancel-while-tokenizing')).toBe(true);
    expect((await pending).timeline.finishReason).toBe('cancelled');
    expectNothingHeld(runtime);
  });
});

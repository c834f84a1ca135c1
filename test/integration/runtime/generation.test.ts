import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../../src-main/runtime/runtime';
import { createTestRuntime, expectNothingHeld, generate, TEST_MODEL_ID } from '../../support/runtime';

describe('generation on the real model', () => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await createTestRuntime({ isPaging: false, prefillChunkTokens: null });
  });
  afterAll(() => runtime.close());

  it('round-trips English text through the tokenizer', () => {
    const entry = runtime.catalogue.entryOf(TEST_MODEL_ID);
    if (entry?.status !== 'ok') throw new Error('test model did not load');
    const { tokenizer } = entry.model.folder;
    const text =
      'It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wife.';
    expect(tokenizer.decode(tokenizer.encode(text))).toBe(text);
  });

  it('gives the same greedy tokens on two runs of the same prompt', async () => {
    const prompt = { kind: 'text' as const, text: 'Once upon a time' };
    const first = await generate(runtime, { prompt, maxTokens: 16 });
    const second = await generate(runtime, { prompt, maxTokens: 16 });
    expect(first.timeline.finishReason).toBe('length');
    expect(second.tokenIds).toEqual(first.tokenIds);
    expect(first.tokenIds).toHaveLength(16);
  });

  it('neutral penalties change no greedy token; the penalties reach the worker and change the answer', async () => {
    const prompt = { kind: 'text' as const, text: 'the cat and the cat and the cat and the' };
    const plain = await generate(runtime, { prompt, maxTokens: 12 });
    const neutral = { minP: 0, repeatPenalty: 1, presencePenalty: 0, frequencyPenalty: 0 };
    expect((await generate(runtime, { prompt, maxTokens: 12, ...neutral })).tokenIds).toEqual(plain.tokenIds);
    // The repeat window holds the prompt's repeats and the answer's.
    const repeat = await generate(runtime, { prompt, maxTokens: 12, repeatPenalty: 2 });
    expect(repeat.tokenIds).not.toEqual(plain.tokenIds);
    // Frequency counts the answer only: until the plain answer repeats a token of its own, it
    // lowers only tokens greedy did not pick, so the answers agree that far, and part there.
    const frequency = await generate(runtime, { prompt, maxTokens: 12, frequencyPenalty: 2 });
    const firstRepeat = plain.tokenIds.findIndex((id, i) => plain.tokenIds.indexOf(id) < i);
    expect(firstRepeat).toBeGreaterThan(0);
    expect(frequency.tokenIds.slice(0, firstRepeat)).toEqual(plain.tokenIds.slice(0, firstRepeat));
    expect(frequency.tokenIds).not.toEqual(plain.tokenIds);
  });

  it('decodes with the past K/V fed back to the same tokens as recomputing the whole sequence each step', async () => {
    const text = 'She was the youngest of the two daughters';
    const decoded = await generate(runtime, { prompt: { kind: 'text', text }, maxTokens: 8 });
    const entry = runtime.catalogue.entryOf(TEST_MODEL_ID)!;
    if (entry.status !== 'ok') throw new Error('test model did not load');
    const { tokenizer } = entry.model.folder;
    const ids = tokenizer.encode(text);
    const recomputed: number[] = [];
    for (let step = 0; step < 8; step++) {
      const full = tokenizer.decode([...ids, ...recomputed], false);
      const next = await generate(runtime, { prompt: { kind: 'text', text: full }, maxTokens: 1 });
      if (tokenizer.encode(full).join() !== [...ids, ...recomputed].join()) break;
      recomputed.push(next.tokenIds[0]!);
    }
    expect(recomputed.length).toBeGreaterThanOrEqual(4);
    expect(decoded.tokenIds.slice(0, recomputed.length)).toEqual(recomputed);
  });

  it('records a timeline whose parts sum to its TTFT and starts cold then runs warm', async () => {
    const warm = await generate(runtime, { prompt: { kind: 'text', text: 'The weather' }, maxTokens: 4 });
    expect(warm.timeline.isColdSlot).toBe(false);
    expect(warm.timeline.parts.slotLoad).toBe(0);
    expect(warm.timeline.ttftMs).toBeGreaterThan(0);
    expect(warm.timeline.itlMs).toHaveLength(3);
    expectNothingHeld(runtime);
  });
});

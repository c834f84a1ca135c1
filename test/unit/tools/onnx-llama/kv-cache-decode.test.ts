import type * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import {
  argmax,
  emptyPast,
  greedyDecode,
  kvLayoutOf,
  runStep,
  type KvLayout,
} from '../../../../tools/onnx-llama/ort-runner';
import { maxAbsDiff, openSession, samplePrompt, tinyConfig, tinyWeights } from './tiny-model';

const NUM_NEW_TOKENS = 10;

/** Greedy decode that recomputes the whole sequence from an empty past every step. */
async function greedyByRecompute(
  session: ort.InferenceSession,
  layout: KvLayout,
  prompt: number[],
  numNewTokens: number,
) {
  const sequence = [...prompt];
  const lastLogits: Float32Array[] = [];
  for (let produced = 0; produced < numNewTokens; produced++) {
    const step = await runStep(session, {
      inputIds: [sequence],
      attentionMask: [sequence.map(() => 1)],
      positionIds: [sequence.map((_, i) => i)],
      past: emptyPast(layout, 1),
    });
    const vocabSize = step.logitsDims[2]!;
    const last = step.logits.slice(step.logits.length - vocabSize);
    lastLogits.push(last);
    sequence.push(argmax(last));
  }
  return { tokens: sequence.slice(prompt.length), lastLogits };
}

describe('K/V cache decode', () => {
  const config = tinyConfig();
  const layout = kvLayoutOf(config);
  const prompt = samplePrompt(7, config.vocab_size);

  it('gives the same logits (within 1e-4) and greedy tokens as a full recompute every step', async () => {
    const session = await openSession(config, tinyWeights(config));
    const incremental = await greedyDecode(session, layout, prompt, NUM_NEW_TOKENS);
    const recompute = await greedyByRecompute(session, layout, prompt, NUM_NEW_TOKENS);
    expect(incremental.tokens).toEqual(recompute.tokens);
    expect(new Set(incremental.tokens).size).toBeGreaterThan(1);
    recompute.lastLogits.forEach((logits, step) =>
      expect(maxAbsDiff(incremental.lastLogits[step]!, logits)).toBeLessThan(1e-4),
    );
    await session.release();
  });

  it('gives the same result when the prompt is prefilled in chunks on top of a non-empty past', async () => {
    const session = await openSession(config, tinyWeights(config));
    const whole = await greedyDecode(session, layout, prompt, NUM_NEW_TOKENS);
    const chunked = await greedyDecode(session, layout, prompt, NUM_NEW_TOKENS, 3);
    expect(chunked.tokens).toEqual(whole.tokens);
    whole.lastLogits.forEach((logits, step) =>
      expect(maxAbsDiff(chunked.lastLogits[step]!, logits)).toBeLessThan(1e-4),
    );
    await session.release();
  });

  it('returns present K/V equal to concat(past, new) along the sequence axis', async () => {
    const session = await openSession(config, tinyWeights(config));
    const full = await runStep(session, {
      inputIds: [prompt],
      attentionMask: [prompt.map(() => 1)],
      positionIds: [prompt.map((_, i) => i)],
      past: emptyPast(layout, 1),
    });
    const head = await runStep(session, {
      inputIds: [prompt.slice(0, 4)],
      attentionMask: [[1, 1, 1, 1]],
      positionIds: [[0, 1, 2, 3]],
      past: emptyPast(layout, 1),
    });
    const tail = await runStep(session, {
      inputIds: [prompt.slice(4)],
      attentionMask: [prompt.map(() => 1)],
      positionIds: [[4, 5, 6]],
      past: head.nextPast,
    });
    for (const [name, tensor] of Object.entries(full.nextPast)) {
      expect(tail.nextPast[name]!.dims).toEqual([1, 2, 7, 16]);
      expect(maxAbsDiff(tail.nextPast[name]!.data as Float32Array, tensor.data as Float32Array)).toBeLessThan(
        1e-5,
      );
      const pastPart = (tail.nextPast[name]!.data as Float32Array).subarray(0, 4 * 16);
      expect(Array.from(pastPart)).toEqual(
        Array.from((head.nextPast[name]!.data as Float32Array).subarray(0, 4 * 16)),
      );
    }
    await session.release();
  });
});

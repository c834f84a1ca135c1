import { describe, expect, it } from 'vitest';
import {
  argmax,
  emptyPast,
  greedyDecode,
  kvLayoutOf,
  runStep,
} from '../../../../tools/onnx-llama/ort-runner';
import { maxAbsDiff, openSession, samplePrompt, tinyConfig, tinyWeights } from './tiny-model';

const PAD_ID = 0;
const NUM_NEW_TOKENS = 5;

/** Left-pads rows to the longest; mask 0 on pads; positions count real tokens (pads get 1, as HF does). */
function leftPad(prompts: number[][]) {
  const width = Math.max(...prompts.map((p) => p.length));
  const inputIds = prompts.map((p) => [...new Array<number>(width - p.length).fill(PAD_ID), ...p]);
  const attentionMask = prompts.map((p) => [
    ...new Array<number>(width - p.length).fill(0),
    ...p.map(() => 1),
  ]);
  const positionIds = prompts.map((p) => [
    ...new Array<number>(width - p.length).fill(1),
    ...p.map((_, i) => i),
  ]);
  return { inputIds, attentionMask, positionIds };
}

describe('left-padded batch', () => {
  const config = tinyConfig();
  const layout = kvLayoutOf(config);
  const prompts = [samplePrompt(5, config.vocab_size, 21), samplePrompt(8, config.vocab_size, 22)];

  it('gives each row the same last-position logits and greedy continuation as that sequence alone', async () => {
    const session = await openSession(config, tinyWeights(config));
    const alone = await Promise.all(prompts.map((p) => greedyDecode(session, layout, p, NUM_NEW_TOKENS)));
    const padded = leftPad(prompts);
    let step = await runStep(session, { ...padded, past: emptyPast(layout, 2) });
    const vocabSize = config.vocab_size;
    const width = padded.inputIds[0]!.length;
    let mask = padded.attentionMask;
    const lengths = prompts.map((p) => p.length);
    for (let produced = 0; produced < NUM_NEW_TOKENS; produced++) {
      const numPositions = step.logitsDims[1]!;
      const nextTokens = prompts.map((_, row) => {
        const offset = (row * numPositions + numPositions - 1) * vocabSize;
        const last = step.logits.subarray(offset, offset + vocabSize);
        expect(maxAbsDiff(last, alone[row]!.lastLogits[produced]!)).toBeLessThan(1e-4);
        return argmax(last);
      });
      expect(nextTokens).toEqual(alone.map((run) => run.tokens[produced]));
      mask = mask.map((row) => [...row, 1]);
      const positionIds = lengths.map((length) => [length + produced]);
      step = await runStep(session, {
        inputIds: nextTokens.map((t) => [t]),
        attentionMask: mask,
        positionIds,
        past: step.nextPast,
      });
    }
    expect(mask[0]!.length).toBe(width + NUM_NEW_TOKENS);
    await session.release();
  });

  it('keeps fully masked pad positions finite (large negative mask, not -inf)', async () => {
    const session = await openSession(config, tinyWeights(config));
    const step = await runStep(session, { ...leftPad(prompts), past: emptyPast(layout, 2) });
    expect(step.logits.every(Number.isFinite)).toBe(true);
    for (const tensor of Object.values(step.nextPast))
      expect((tensor.data as Float32Array).every(Number.isFinite)).toBe(true);
    await session.release();
  });
});

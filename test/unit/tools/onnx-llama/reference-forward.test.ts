import { describe, expect, it } from 'vitest';
import { emptyPast, kvLayoutOf, runStep } from '../../../../tools/onnx-llama/ort-runner';
import { referenceForward } from './reference-forward';
import { maxAbsDiff, openSession, samplePrompt, tinyConfig, tinyWeights } from './tiny-model';

async function compareWithReference(
  config: ReturnType<typeof tinyConfig>,
  positions: number[],
): Promise<number> {
  const weights = tinyWeights(config);
  const session = await openSession(config, weights);
  const prompt = samplePrompt(positions.length, config.vocab_size);
  const step = await runStep(session, {
    inputIds: [prompt],
    attentionMask: [prompt.map(() => 1)],
    positionIds: [positions],
    past: emptyPast(kvLayoutOf(config), 1),
  });
  const expected = referenceForward(config, weights, prompt, positions);
  expect(step.logits.length).toBe(expected.length);
  await session.release();
  return maxAbsDiff(step.logits, expected);
}

describe('ONNX graph vs an independent plain-loop forward pass', () => {
  it('matches every position of the tiny tied GQA model within 1e-4', async () => {
    const positions = Array.from({ length: 9 }, (_, i) => i);
    expect(await compareWithReference(tinyConfig(), positions)).toBeLessThan(1e-4);
  });

  it('matches with an untied lm_head, MHA (kv heads = heads), other eps/theta and gapped position_ids', async () => {
    const config = tinyConfig({
      isTiedEmbedding: false,
      numKvHeads: 4,
      rmsNormEps: 1e-6,
      ropeTheta: 500,
      numLayers: 3,
    });
    const positions = [40, 41, 43, 47, 48, 60, 61]; // RoPE is relative: only uneven gaps test position use
    expect(await compareWithReference(config, positions)).toBeLessThan(1e-4);
  });

  it('matches with one kv head shared by all query heads (MQA) and a wider head_dim', async () => {
    const config = tinyConfig({ numHeads: 2, numKvHeads: 1 });
    const positions = Array.from({ length: 6 }, (_, i) => i);
    expect(await compareWithReference(config, positions)).toBeLessThan(1e-4);
  });
});

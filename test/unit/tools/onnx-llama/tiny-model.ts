// Shared fixtures for the onnx-llama tests: a tiny GQA config, seeded weights
// (norm weights perturbed so a swapped norm would show), and session creation.

import * as ort from 'onnxruntime-node';
import type { LlamaConfig, LlamaShape } from '../../../../tools/onnx-llama/config';
import { TINY_SHAPE as TOOLS_TINY_SHAPE, makeLlamaConfig } from '../../../../tools/onnx-llama/config';
import { buildLlamaOnnx } from '../../../../tools/onnx-llama/llama-graph';
import type { WeightDtype } from '../../../../tools/onnx-llama/weight-initializers';
import type { LlamaWeights } from '../../../../tools/onnx-llama/weights';
import { seededUniform, randomLlamaWeights } from '../../../../tools/onnx-llama/random-weights';

/**
 * The tools' tiny shape (L=2, H=64, NH=4, NKV=2: two query heads per kv head, I=128) with a
 * 300-token vocabulary and 256 positions, so graphs build and run in milliseconds.
 */
export const TINY_SHAPE: LlamaShape = { ...TOOLS_TINY_SHAPE, vocabSize: 300, maxPositions: 256 };

/** The tiny config with optional shape overrides. */
export function tinyConfig(overrides: Partial<LlamaShape> = {}): LlamaConfig {
  return makeLlamaConfig({ ...TINY_SHAPE, ...overrides });
}

/** Seeded weights with std 0.1 (peaked logits) and norm weights in [0.5, 1.5). */
export function tinyWeights(config: LlamaConfig, seed = 3): LlamaWeights {
  const weights = randomLlamaWeights(config, { seed, std: 0.1 });
  const uniform = seededUniform(seed + 1000);
  for (const tensor of weights.values()) {
    if (tensor.shape.length === 1)
      for (let i = 0; i < tensor.data.length; i++) tensor.data[i] = 0.5 + uniform();
  }
  return weights;
}

/** Builds the graph and opens a CPU session with full graph optimization. */
export async function openSession(
  config: LlamaConfig,
  weights: LlamaWeights,
  weightDtype: WeightDtype = 'float32',
): Promise<ort.InferenceSession> {
  const bytes = buildLlamaOnnx(config, weights, { weightDtype });
  return ort.InferenceSession.create(bytes, { graphOptimizationLevel: 'all', logSeverityLevel: 3 });
}

/** Largest absolute elementwise difference of two equal-length arrays. */
export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`length ${a.length} vs ${b.length}`);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
  return worst;
}

/** A prompt of `length` ids in [1, vocabSize), deterministic per seed. */
export function samplePrompt(length: number, vocabSize: number, seed = 11): number[] {
  const uniform = seededUniform(seed);
  return Array.from({ length }, () => 1 + Math.floor(uniform() * (vocabSize - 1)));
}

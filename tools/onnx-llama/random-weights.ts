// Deterministic random Llama weights for benchmarks and tests: seeded
// mulberry32 + Box-Muller normals written straight into Float32Arrays, scaled
// like the training init so activations stay finite at any depth.

import { validateLlamaConfig, type LlamaConfig } from './config';
import { expectedWeightShapes, type LlamaWeights } from './weights';

/** Options for randomLlamaWeights. */
export interface RandomWeightsOptions {
  /** Same seed + config → bit-identical weights. Default 1. */
  seed?: number;
  /** Std of matrix entries; o_proj/down_proj use std / sqrt(2 · layers). Default 0.02. */
  std?: number;
}

/** mulberry32: a fast 32-bit seeded generator; returns uniforms in (0, 1). */
export function seededUniform(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296;
  };
}

/** Fills `target` with normal(0, std) samples (Box-Muller, two per uniform pair). */
export function fillNormal(target: Float32Array, std: number, uniform: () => number): void {
  for (let i = 0; i < target.length; i += 2) {
    const radius = std * Math.sqrt(-2 * Math.log(uniform()));
    const angle = 2 * Math.PI * uniform();
    target[i] = radius * Math.cos(angle);
    if (i + 1 < target.length) target[i + 1] = radius * Math.sin(angle);
  }
}

function hashName(name: string): number {
  let hash = 2166136261;
  for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), 16777619);
  return hash >>> 0;
}

/**
 * Random weights for every tensor the config needs (HF names and shapes).
 * Each tensor has its own stream (seed ^ hash(name)), so shapes of other tensors don't shift it.
 */
export function randomLlamaWeights(config: LlamaConfig, options: RandomWeightsOptions = {}): LlamaWeights {
  const validConfig = validateLlamaConfig(config);
  const seed = options.seed ?? 1;
  const std = options.std ?? 0.02;
  const residualStd = std / Math.sqrt(2 * validConfig.num_hidden_layers);
  const weights: LlamaWeights = new Map();
  for (const [name, shape] of expectedWeightShapes(validConfig)) {
    const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
    if (shape.length === 1) {
      data.fill(1);
    } else {
      const isResidualOutput = name.endsWith('o_proj.weight') || name.endsWith('down_proj.weight');
      fillNormal(data, isResidualOutput ? residualStd : std, seededUniform(seed ^ hashName(name)));
    }
    weights.set(name, { data, shape });
  }
  return weights;
}

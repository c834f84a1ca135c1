// An independent, deliberately plain forward pass of HF Llama for one
// sequence (no cache): loops over Float64Arrays, weights read in their HF
// [out, in] layout. The ONNX graph's math is checked against this.

import type { LlamaConfig } from '../../../../tools/onnx-llama/config';
import { llamaDims } from '../../../../tools/onnx-llama/config';
import type { LlamaWeights } from '../../../../tools/onnx-llama/weights';

function weight(weights: LlamaWeights, name: string): Float32Array {
  const tensor = weights.get(name);
  if (!tensor) throw new Error(`missing ${name}`);
  return tensor.data;
}

function rmsNorm(x: Float64Array, gain: Float32Array, eps: number): Float64Array {
  let sumSquares = 0;
  for (const v of x) sumSquares += v * v;
  const scale = 1 / Math.sqrt(sumSquares / x.length + eps);
  return x.map((v, i) => v * scale * gain[i]!);
}

/** y = W x for W stored [numOut, numIn] row-major. */
function linear(w: Float32Array, x: Float64Array, numOut: number): Float64Array {
  const y = new Float64Array(numOut);
  for (let o = 0; o < numOut; o++) {
    let sum = 0;
    for (let i = 0; i < x.length; i++) sum += w[o * x.length + i]! * x[i]!;
    y[o] = sum;
  }
  return y;
}

/** Rotates each head of `vector` (numHeads × headDim) in place, HF rotate_half convention. */
function applyRope(
  vector: Float64Array,
  numHeads: number,
  headDim: number,
  position: number,
  theta: number,
): void {
  const half = headDim / 2;
  for (let head = 0; head < numHeads; head++) {
    const base = head * headDim;
    for (let i = 0; i < half; i++) {
      const angle = position / theta ** ((2 * i) / headDim);
      const first = vector[base + i]!;
      const second = vector[base + half + i]!;
      vector[base + i] = first * Math.cos(angle) - second * Math.sin(angle);
      vector[base + half + i] = second * Math.cos(angle) + first * Math.sin(angle);
    }
  }
}

function attend(
  queries: Float64Array[],
  keys: Float64Array[],
  values: Float64Array[],
  config: LlamaConfig,
): Float64Array[] {
  const d = llamaDims(config);
  const groupSize = d.numHeads / d.numKvHeads;
  return queries.map((query, i) => {
    const out = new Float64Array(d.numHeads * d.headDim);
    for (let head = 0; head < d.numHeads; head++) {
      const kvBase = Math.floor(head / groupSize) * d.headDim;
      const scores: number[] = [];
      for (let j = 0; j <= i; j++) {
        let dot = 0;
        for (let c = 0; c < d.headDim; c++) dot += query[head * d.headDim + c]! * keys[j]![kvBase + c]!;
        scores.push(dot / Math.sqrt(d.headDim));
      }
      const maxScore = Math.max(...scores);
      const exps = scores.map((s) => Math.exp(s - maxScore));
      const total = exps.reduce((a, b) => a + b, 0);
      exps.forEach((e, j) => {
        for (let c = 0; c < d.headDim; c++)
          out[head * d.headDim + c]! += (e / total) * values[j]![kvBase + c]!;
      });
    }
    return out;
  });
}

function decoderLayer(
  x: Float64Array[],
  weights: LlamaWeights,
  config: LlamaConfig,
  layer: number,
  positions: number[],
): Float64Array[] {
  const d = llamaDims(config);
  const w = (name: string): Float32Array => weight(weights, `model.layers.${layer}.${name}.weight`);
  const normed = x.map((row) => rmsNorm(row, w('input_layernorm'), d.rmsNormEps));
  const queries = normed.map((row) => linear(w('self_attn.q_proj'), row, d.numHeads * d.headDim));
  const keys = normed.map((row) => linear(w('self_attn.k_proj'), row, d.numKvHeads * d.headDim));
  const values = normed.map((row) => linear(w('self_attn.v_proj'), row, d.numKvHeads * d.headDim));
  queries.forEach((q, s) => applyRope(q, d.numHeads, d.headDim, positions[s]!, d.ropeTheta));
  keys.forEach((k, s) => applyRope(k, d.numKvHeads, d.headDim, positions[s]!, d.ropeTheta));
  const context = attend(queries, keys, values, config);
  const attentionOut = context.map((row) => linear(w('self_attn.o_proj'), row, d.hiddenSize));
  const afterAttention = x.map((row, s) => row.map((v, c) => v + attentionOut[s]![c]!));
  return afterAttention.map((row) => {
    const h = rmsNorm(row, w('post_attention_layernorm'), d.rmsNormEps);
    const gate = linear(w('mlp.gate_proj'), h, d.intermediateSize);
    const up = linear(w('mlp.up_proj'), h, d.intermediateSize);
    const mixed = gate.map((g, i) => (g / (1 + Math.exp(-g))) * up[i]!);
    const down = linear(w('mlp.down_proj'), mixed, d.hiddenSize);
    return row.map((v, c) => v + down[c]!);
  });
}

/** Logits [S, V] (row-major) for one sequence; positions default to 0..S-1. */
export function referenceForward(
  config: LlamaConfig,
  weights: LlamaWeights,
  tokenIds: number[],
  positions = tokenIds.map((_, i) => i),
): Float64Array {
  const d = llamaDims(config);
  const embed = weight(weights, 'model.embed_tokens.weight');
  let x: Float64Array[] = tokenIds.map((id) =>
    Float64Array.from(embed.subarray(id * d.hiddenSize, (id + 1) * d.hiddenSize)),
  );
  for (let layer = 0; layer < d.numLayers; layer++) x = decoderLayer(x, weights, config, layer, positions);
  const head = weight(weights, d.isTiedEmbedding ? 'model.embed_tokens.weight' : 'lm_head.weight');
  const logits = new Float64Array(tokenIds.length * d.vocabSize);
  x.forEach((row, s) =>
    logits.set(
      linear(head, rmsNorm(row, weight(weights, 'model.norm.weight'), d.rmsNormEps), d.vocabSize),
      s * d.vocabSize,
    ),
  );
  return logits;
}

// A GGUF's architecture and dimensions (the `{arch}.*` metadata llama.cpp reads), checked
// against its tensor directory. Llama-family architectures whose graph the fused writer builds
// are accepted; every other one is named in the refusal.

import type { DecoderDims } from '../fused-graph/weight-set';
import { NotSupportedYet } from '../listing-status';
import { longRopeSetOf } from '../rope';
import type { GgufMetaValue } from './gguf-header';
import type { GgufSetTensor } from './gguf-files';
import { gemmaDimsOf } from './gemma-dims';
import { projectionLayoutOf } from './stacked-projections';
import type { ProjectionLayout } from './stacked-projections';
import { shapeBeyondLimits } from '../shape-limits';

/**
 * A llama-family decoder's dimensions as a GGUF states them: the fused writer's, but its RoPE
 * scaling is a linear factor, the tensor of per-frequency factors llama.cpp picks (ropeFactorsTensorOf)
 * with the factor cos and sin are multiplied by, or none.
 */
export type GgufDims = Omit<DecoderDims, 'ropeScaling'> & {
  ropeScaling:
    | { type: 'linear'; factor: number }
    | { type: 'frequency-factors'; tensor: string; attentionFactor: number }
    | null;
};

/**
 * What a layer of an architecture adds to llama's: q/k/v biases (Qwen2), per-head q/k norms
 * (Qwen3, Gemma 3) or norms of the attention's and MLP's outputs (Gemma 2 and 3).
 */
export type LayerExtra = 'qkv-bias' | 'qk-norm' | 'output-norms';

/**
 * Architectures First Frame converts: whether llama.cpp stored their Q/K rows permuted for its
 * interleaved rope (llama's; Qwen's and Phi-3's use NeoX rope, Hugging Face's order), what their
 * layers add, and whether gate/up are stacked in one `ffn_up` (phi3: stacked-projections.ts).
 */
export const GGUF_ARCHITECTURES: Record<
  string,
  { isRopePermuted: boolean; extras: LayerExtra[]; isGateUpStacked?: boolean }
> = {
  llama: { isRopePermuted: true, extras: [] },
  mistral: { isRopePermuted: true, extras: [] },
  mistral3: { isRopePermuted: true, extras: [] },
  phi3: { isRopePermuted: false, extras: [], isGateUpStacked: true },
  qwen2: { isRopePermuted: false, extras: ['qkv-bias'] },
  qwen3: { isRopePermuted: false, extras: ['qk-norm'] },
  // Gemma's other differences (embedding scale, GELU, soft-capping, sliding layers): gemma-dims.ts.
  gemma2: { isRopePermuted: false, extras: ['output-norms'] },
  gemma3: { isRopePermuted: false, extras: ['qk-norm', 'output-norms'] },
};

/** The extra tensors of each layer extra (ggml names without `blk.N.`), and their shape from the dims. */
export const EXTRA_TENSORS: Record<LayerExtra, Array<[string, (dims: GgufDims) => number[]]>> = {
  'qkv-bias': [
    ['attn_q.bias', (d) => [d.numHeads * d.headDim]],
    ['attn_k.bias', (d) => [d.numKvHeads * d.headDim]],
    ['attn_v.bias', (d) => [d.numKvHeads * d.headDim]],
  ],
  'qk-norm': [
    ['attn_q_norm.weight', (d) => [d.headDim]],
    ['attn_k_norm.weight', (d) => [d.headDim]],
  ],
  'output-norms': [
    ['post_attention_norm.weight', (d) => [d.hiddenSize]],
    ['post_ffw_norm.weight', (d) => [d.hiddenSize]],
  ],
};

/** A GGUF that is not a model First Frame can convert, with the reason. */
export class GgufModelError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GgufModelError';
  }
}

/** The architecture named by general.architecture; one not in GGUF_ARCHITECTURES throws NotSupportedYet. */
export function architectureOf(meta: ReadonlyMap<string, GgufMetaValue>): string {
  const arch = meta.get('general.architecture');
  if (typeof arch !== 'string') throw new GgufModelError('has no general.architecture');
  if (!Object.hasOwn(GGUF_ARCHITECTURES, arch))
    throw new NotSupportedYet(`architecture ${arch}`, Object.keys(GGUF_ARCHITECTURES));
  return arch;
}

/** The decoder's dimensions from `{arch}.*` metadata, checked against the tensors. Throws GgufModelError. */
export function dimsOf(
  arch: string,
  meta: ReadonlyMap<string, GgufMetaValue>,
  tensors: ReadonlyMap<string, GgufSetTensor>,
): GgufDims {
  const int = (key: string, fallback?: number): number => {
    const value = meta.get(`${arch}.${key}`) ?? fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0)
      throw new GgufModelError(
        `${arch}.${key} is ${value === undefined ? 'missing' : `not a positive integer (${String(value)})`}`,
      );
    return value;
  };
  const float = (key: string, fallback: number): number => {
    const value = meta.get(`${arch}.${key}`) ?? fallback;
    if (typeof value !== 'number' || !Number.isFinite(value))
      throw new GgufModelError(`${arch}.${key} is not a number`);
    return value;
  };
  const hiddenSize = int('embedding_length');
  const numHeads = int('attention.head_count');
  const embedding = tensors.get('token_embd.weight');
  if (!embedding) throw new GgufModelError('has no token_embd.weight tensor');
  const headDim = int('attention.key_length', hiddenSize / numHeads);
  if (int('attention.value_length', headDim) !== headDim)
    throw new GgufModelError(
      `${arch}.attention.value_length differs from key_length; not a llama-family attention`,
    );
  if (int('rope.dimension_count', headDim) !== headDim)
    throw new GgufModelError(
      `${arch}.rope.dimension_count is not the head size (partial rotary is not supported)`,
    );
  if (float('attention.temperature_scale', 0) !== 0)
    throw new GgufModelError(
      `${arch}.attention.temperature_scale (Llama 4 attention scaling) is not supported`,
    );
  const contextLength = int('context_length');
  const ropeFactors = { contextLength, attentionFactor: float('rope.scaling.attn_factor', 1) };
  const numLayers = int('block_count');
  const ropeScaling = ropeScalingOf(arch, meta, tensors, ropeFactors);
  const dims: GgufDims = {
    numLayers,
    hiddenSize,
    numHeads,
    numKvHeads: int('attention.head_count_kv', numHeads),
    headDim,
    intermediateSize: int('feed_forward_length'),
    vocabSize: int('vocab_size', embedding.dims[1]),
    ropeTheta: float('rope.freq_base', 10000),
    ropeScaling,
    rmsNormEps: float('attention.layer_norm_rms_epsilon', 1e-5),
    isTiedEmbedding: !tensors.has('output.weight'),
    contextLength,
    gemma: gemmaDimsOf(
      arch,
      meta,
      { numLayers, hiddenSize, numHeads, headDim, hasRopeScaling: ropeScaling !== null },
      (problem) => {
        throw new GgufModelError(problem);
      },
    ),
  };
  const beyond = shapeBeyondLimits([
    { name: `${arch}.block_count`, dimension: 'numLayers', value: dims.numLayers },
    { name: `${arch}.attention.head_count`, dimension: 'numHeads', value: numHeads },
    { name: `${arch}.attention.head_count_kv`, dimension: 'numKvHeads', value: dims.numKvHeads },
    { name: `${arch}.attention.key_length`, dimension: 'headDim', value: headDim },
    { name: `${arch}.embedding_length`, dimension: 'hiddenSize', value: hiddenSize },
    { name: `${arch}.feed_forward_length`, dimension: 'intermediateSize', value: dims.intermediateSize },
    { name: `${arch}.vocab_size`, dimension: 'vocabSize', value: dims.vocabSize },
    { name: `${arch}.context_length`, dimension: 'maxPositions', value: dims.contextLength },
  ]);
  if (beyond) throw new GgufModelError(`${beyond.field} ${beyond.problem}`);
  if (numHeads % dims.numKvHeads !== 0)
    throw new GgufModelError(
      `${arch}.attention.head_count_kv (${dims.numKvHeads}) does not divide head_count (${numHeads})`,
    );
  checkTensors(dims, tensors, GGUF_ARCHITECTURES[arch]?.extras ?? [], layoutOf(arch, tensors));
  return dims;
}

/** How the file stores each layer's q/k/v and gate/up (apart, or stacked as phi3's are). */
export function layoutOf(arch: string, tensors: ReadonlyMap<string, GgufSetTensor>): ProjectionLayout {
  return projectionLayoutOf(tensors, GGUF_ARCHITECTURES[arch]?.isGateUpStacked ?? false);
}

/** Per-frequency factors (with LongRoPE's attention factor) when the file has them, else a scaling type. */
function ropeScalingOf(
  arch: string,
  meta: ReadonlyMap<string, GgufMetaValue>,
  tensors: ReadonlyMap<string, GgufSetTensor>,
  { contextLength, attentionFactor }: { contextLength: number; attentionFactor: number },
): GgufDims['ropeScaling'] {
  if (!(attentionFactor > 0)) throw new GgufModelError(`${arch}.rope.scaling.attn_factor is not positive`);
  const tensor = ropeFactorsTensorOf(arch, meta, tensors, contextLength);
  if (tensor) return { type: 'frequency-factors', tensor, attentionFactor };
  if (attentionFactor !== 1)
    throw new GgufModelError(`${arch}.rope.scaling.attn_factor is set without RoPE factor tensors`);
  const type = meta.get(`${arch}.rope.scaling.type`);
  if (type === undefined || type === 'none') return null;
  const factor = meta.get(`${arch}.rope.scaling.factor`);
  if (type === 'linear' && typeof factor === 'number' && factor > 0) return { type: 'linear', factor };
  throw new GgufModelError(
    `${arch}.rope.scaling.type ${String(type)} is not supported (linear and llama3 frequency factors are)`,
  );
}

/**
 * The tensor of per-frequency divisors llama.cpp applies to a sequence of up to `contextLength`
 * positions (the length First Frame runs a slot at), or null when the file has none: Llama 3's
 * `rope_freqs.weight`, else LongRoPE's `rope_factors_long.weight` or `rope_factors_short.weight`
 * as rope.ts's longRopeSetOf picks against `{arch}.rope.scaling.original_context_length`.
 * LongRoPE's attention factor (`{arch}.rope.scaling.attn_factor`, sqrt(1 + ln(scale) / ln(original
 * context))) multiplies cos and sin, as ggml_rope_ext's mscale does.
 */
export function ropeFactorsTensorOf(
  arch: string,
  meta: ReadonlyMap<string, GgufMetaValue>,
  tensors: ReadonlyMap<string, GgufSetTensor>,
  contextLength: number,
): string | null {
  if (tensors.has('rope_freqs.weight')) return 'rope_freqs.weight';
  const original = meta.get(`${arch}.rope.scaling.original_context_length`);
  const tensor = `rope_factors_${longRopeSetOf(contextLength, typeof original === 'number' ? original : null)}.weight`;
  return tensors.has(tensor) ? tensor : null;
}

/** Every tensor the decoder reads is present with the shape the dimensions imply. */
function checkTensors(
  dims: GgufDims,
  tensors: ReadonlyMap<string, GgufSetTensor>,
  extras: readonly LayerExtra[],
  layout: ProjectionLayout,
): void {
  const expect = (name: string, shape: number[]) => {
    const tensor = tensors.get(name);
    if (!tensor) throw new GgufModelError(`has no ${name} tensor`);
    if (tensor.dims.join('x') !== shape.join('x'))
      throw new GgufModelError(
        `tensor ${name} is ${tensor.dims.join('×')}; the metadata implies ${shape.join('×')}`,
      );
  };
  const { hiddenSize: h, vocabSize } = dims;
  expect('token_embd.weight', [h, vocabSize]);
  if (dims.ropeScaling?.type === 'frequency-factors') expect(dims.ropeScaling.tensor, [dims.headDim / 2]);
  for (let layer = 0; layer < dims.numLayers; layer++) {
    for (const [part, shape] of layerTensorsOf(dims, layout)) expect(`blk.${layer}.${part}.weight`, shape);
    for (const extra of extras)
      for (const [name, shapeOf] of EXTRA_TENSORS[extra]) expect(`blk.${layer}.${name}`, shapeOf(dims));
  }
  expect('output_norm.weight', [h]);
  if (!dims.isTiedEmbedding) expect('output.weight', [h, vocabSize]);
}

/**
 * The tensors a layer reads (ggml names, without the `blk.N.` prefix and `.weight`) in reading
 * order, each with its ggml shape ([in, out] for a matrix).
 */
export function layerTensorsOf(dims: GgufDims, layout: ProjectionLayout): Array<[string, number[]]> {
  const { hiddenSize: h, intermediateSize: ffn } = dims;
  const qWidth = dims.numHeads * dims.headDim;
  const kvWidth = dims.numKvHeads * dims.headDim;
  type Entry = [string, number[]];
  const qkv: Entry[] = layout.isQkvStacked
    ? [['attn_qkv', [h, qWidth + 2 * kvWidth]]]
    : [
        ['attn_q', [h, qWidth]],
        ['attn_k', [h, kvWidth]],
        ['attn_v', [h, kvWidth]],
      ];
  const gateUp: Entry[] = layout.isGateUpStacked
    ? [['ffn_up', [h, 2 * ffn]]]
    : [
        ['ffn_gate', [h, ffn]],
        ['ffn_up', [h, ffn]],
      ];
  return [
    ['attn_norm', [h]],
    ...qkv,
    ['attn_output', [qWidth, h]],
    ['ffn_norm', [h]],
    ...gateUp,
    ['ffn_down', [ffn, h]],
  ];
}

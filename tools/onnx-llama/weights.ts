// The Llama weight set: HF names, expected shapes, and checking a loaded set
// against a config (errors name the config field the weights disagree with).

import { LlamaConfigError, llamaDims, type LlamaConfig } from './config';

/** One float32 tensor, row-major; `shape` is in HF order ([out, in] for projections). */
export interface NamedTensor {
  data: Float32Array;
  shape: number[];
}

/** Weights by HF name (e.g. `model.layers.0.self_attn.q_proj.weight`). */
export type LlamaWeights = Map<string, NamedTensor>;

/** HF names and shapes of every weight one layer needs. */
export function layerWeightShapes(config: LlamaConfig, layer: number): Array<[string, number[]]> {
  const d = llamaDims(config);
  const prefix = `model.layers.${layer}`;
  return [
    [`${prefix}.input_layernorm.weight`, [d.hiddenSize]],
    [`${prefix}.self_attn.q_proj.weight`, [d.numHeads * d.headDim, d.hiddenSize]],
    [`${prefix}.self_attn.k_proj.weight`, [d.numKvHeads * d.headDim, d.hiddenSize]],
    [`${prefix}.self_attn.v_proj.weight`, [d.numKvHeads * d.headDim, d.hiddenSize]],
    [`${prefix}.self_attn.o_proj.weight`, [d.hiddenSize, d.numHeads * d.headDim]],
    [`${prefix}.post_attention_layernorm.weight`, [d.hiddenSize]],
    [`${prefix}.mlp.gate_proj.weight`, [d.intermediateSize, d.hiddenSize]],
    [`${prefix}.mlp.up_proj.weight`, [d.intermediateSize, d.hiddenSize]],
    [`${prefix}.mlp.down_proj.weight`, [d.hiddenSize, d.intermediateSize]],
  ];
}

/** HF names and shapes of every weight the config needs (lm_head only when untied). */
export function expectedWeightShapes(config: LlamaConfig): Map<string, number[]> {
  const d = llamaDims(config);
  const shapes = new Map<string, number[]>([['model.embed_tokens.weight', [d.vocabSize, d.hiddenSize]]]);
  for (let layer = 0; layer < d.numLayers; layer++) {
    for (const [name, shape] of layerWeightShapes(config, layer)) shapes.set(name, shape);
  }
  shapes.set('model.norm.weight', [d.hiddenSize]);
  if (!d.isTiedEmbedding) shapes.set('lm_head.weight', [d.vocabSize, d.hiddenSize]);
  return shapes;
}

/** Number of parameters the config implies (tied embeddings counted once). */
export function countParameters(config: LlamaConfig): number {
  let total = 0;
  for (const shape of expectedWeightShapes(config).values()) total += shape.reduce((a, b) => a * b, 1);
  return total;
}

/**
 * Adds the `model.` prefix to bare names (`embed_tokens.weight`, `layers.N...`,
 * `norm.weight`), as written by a PyTorch module without the HF wrapper.
 */
export function withHfPrefixes(weights: LlamaWeights): LlamaWeights {
  const out: LlamaWeights = new Map();
  for (const [name, tensor] of weights) {
    const isBare = /^(embed_tokens\.|layers\.\d+\.|norm\.)/.test(name);
    out.set(isBare ? `model.${name}` : name, tensor);
  }
  return out;
}

function highestLayerIndex(weights: LlamaWeights): number {
  let highest = -1;
  for (const name of weights.keys()) {
    const match = /^model\.layers\.(\d+)\./.exec(name);
    if (match) highest = Math.max(highest, Number(match[1]));
  }
  return highest;
}

function fieldForWeight(name: string, dimIndex: number): string {
  if (name.includes('embed_tokens') || name.startsWith('lm_head'))
    return dimIndex === 0 ? 'vocab_size' : 'hidden_size';
  if (name.includes('gate_proj') || name.includes('up_proj'))
    return dimIndex === 0 ? 'intermediate_size' : 'hidden_size';
  if (name.includes('down_proj')) return dimIndex === 0 ? 'hidden_size' : 'intermediate_size';
  if (name.includes('k_proj') || name.includes('v_proj'))
    return dimIndex === 0 ? 'num_key_value_heads' : 'hidden_size';
  if (name.includes('q_proj')) return dimIndex === 0 ? 'num_attention_heads' : 'hidden_size';
  if (name.includes('o_proj')) return dimIndex === 0 ? 'hidden_size' : 'num_attention_heads';
  return 'hidden_size';
}

/**
 * Checks that the weights hold exactly the layers the config names, each with
 * the expected shape and element count. Extra non-layer names (e.g. a tied
 * lm_head copy) are ignored. Throws LlamaConfigError naming the config field.
 */
export function checkWeightsMatchConfig(config: LlamaConfig, weights: LlamaWeights): void {
  const numLayersInWeights = highestLayerIndex(weights) + 1;
  if (numLayersInWeights !== config.num_hidden_layers) {
    throw new LlamaConfigError(
      'num_hidden_layers',
      `is ${config.num_hidden_layers} but the weights hold ${numLayersInWeights} layers` +
        (numLayersInWeights === 0 ? ' (names must start with model.layers.N; see withHfPrefixes)' : ''),
    );
  }
  for (const [name, shape] of expectedWeightShapes(config)) {
    const tensor = weights.get(name);
    if (!tensor)
      throw new LlamaConfigError(
        name.startsWith('lm_head') ? 'tie_word_embeddings' : 'num_hidden_layers',
        `weight ${name} is missing`,
      );
    const badDim = shape.findIndex((size, i) => tensor.shape[i] !== size);
    if (badDim >= 0 || tensor.shape.length !== shape.length) {
      const field = fieldForWeight(name, Math.max(badDim, 0));
      throw new LlamaConfigError(
        field,
        `weight ${name} has shape [${tensor.shape}], config implies [${shape}]`,
      );
    }
    const numElements = shape.reduce((a, b) => a * b, 1);
    if (tensor.data.length !== numElements)
      throw new Error(`weight ${name}: ${tensor.data.length} values for shape [${shape}]`);
  }
}

// The tools' HF-named float weights as the fused graph writer's neutral weight set, and a weight
// set back as HF-named float tensors (for the naive writer and the GGUF writer).

import { blockDequantize } from '../../src-main/runtime/model/fused-graph/block-quantize';
import type {
  DecoderDims,
  DecoderWeightSet,
  FloatWeight,
  MatrixWeight,
} from '../../src-main/runtime/model/fused-graph/weight-set';
import { outInBits } from '../../src-main/runtime/model/fused-graph/float-matrix';
import { llamaDims, type LlamaConfig } from './config';
import type { LlamaWeights, NamedTensor } from './weights';

/** The writer's dims of a validated config (context length: max_position_embeddings). */
export function decoderDimsOf(config: LlamaConfig): DecoderDims {
  const d = llamaDims(config);
  return {
    numLayers: d.numLayers,
    hiddenSize: d.hiddenSize,
    numHeads: d.numHeads,
    numKvHeads: d.numKvHeads,
    headDim: d.headDim,
    intermediateSize: d.intermediateSize,
    vocabSize: d.vocabSize,
    ropeTheta: d.ropeTheta,
    ropeScaling: null,
    rmsNormEps: d.rmsNormEps,
    isTiedEmbedding: d.isTiedEmbedding,
    contextLength: config.max_position_embeddings,
  };
}

function floatWeight(weights: LlamaWeights, name: string): FloatWeight {
  const tensor = weights.get(name);
  if (!tensor) throw new Error(`weight ${name} is missing`);
  return { kind: 'float', dtype: 'float32', data: tensor.data, shape: tensor.shape, order: 'out-in' };
}

/** Float32 HF weights (out × in) as a weight set; the config says whether the head is tied. */
export function weightSetOf(config: LlamaConfig, weights: LlamaWeights): DecoderWeightSet {
  const dims = decoderDimsOf(config);
  const layers = Array.from({ length: dims.numLayers }, (_, layer) => {
    const at = (name: string) => floatWeight(weights, `model.layers.${layer}.${name}.weight`);
    return {
      inputNorm: at('input_layernorm'),
      q: at('self_attn.q_proj'),
      k: at('self_attn.k_proj'),
      v: at('self_attn.v_proj'),
      o: at('self_attn.o_proj'),
      postAttentionNorm: at('post_attention_layernorm'),
      gate: at('mlp.gate_proj'),
      up: at('mlp.up_proj'),
      down: at('mlp.down_proj'),
    };
  });
  return {
    dims,
    embedding: floatWeight(weights, 'model.embed_tokens.weight'),
    layers,
    finalNorm: floatWeight(weights, 'model.norm.weight'),
    lmHead: dims.isTiedEmbedding ? null : floatWeight(weights, 'lm_head.weight'),
  };
}

/** A matrix weight as an HF float tensor (out × in); blocks are dequantized. */
function hfTensorOf(weight: MatrixWeight | FloatWeight): NamedTensor {
  if (weight.kind === 'blocks') {
    const { numRows, numCols, bits, blockSize } = weight;
    const numBlocks = Math.ceil(numCols / blockSize);
    const blobBytes = (blockSize * bits) / 8;
    const values = blockDequantize(
      { data: weight.data, scales: weight.scales, zeroPoints: weight.zeroPoints, numBlocks, blobBytes },
      numRows,
      numCols,
      bits,
    );
    return { data: values, shape: [numRows, numCols] };
  }
  const outIn = outInBits(weight, 'float32');
  const data = new Float32Array(outIn.bits.buffer, outIn.bits.byteOffset, outIn.bits.length);
  return { data, shape: weight.shape.length === 1 ? weight.shape : [outIn.numRows, outIn.numCols] };
}

/** A weight set as HF-named float32 tensors (the naive writer's and the GGUF writer's input). */
export function hfWeightsOf(set: DecoderWeightSet): LlamaWeights {
  const weights: LlamaWeights = new Map([['model.embed_tokens.weight', hfTensorOf(set.embedding)]]);
  set.layers.forEach((layer, i) => {
    const at = (name: string, weight: MatrixWeight | FloatWeight) =>
      weights.set(`model.layers.${i}.${name}.weight`, hfTensorOf(weight));
    at('input_layernorm', layer.inputNorm);
    at('self_attn.q_proj', layer.q);
    at('self_attn.k_proj', layer.k);
    at('self_attn.v_proj', layer.v);
    at('self_attn.o_proj', layer.o);
    at('post_attention_layernorm', layer.postAttentionNorm);
    at('mlp.gate_proj', layer.gate);
    at('mlp.up_proj', layer.up);
    at('mlp.down_proj', layer.down);
  });
  weights.set('model.norm.weight', hfTensorOf(set.finalNorm));
  if (set.lmHead) weights.set('lm_head.weight', hfTensorOf(set.lmHead));
  return weights;
}

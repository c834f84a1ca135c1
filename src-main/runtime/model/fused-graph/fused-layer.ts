import type { GraphBuilder } from './graph-builder';
import { MS_DOMAIN } from './graph-builder';
import { addAttentionInputs } from './attention-inputs';
import { addGeluTanh, addOutputNorm, gemmaAttentionAttributes } from './gemma';
import type { RotaryCaches } from './gemma';
import { addPackedProjection, addProjection, canPack } from './projections';
import type { ProjectionOptions } from './projections';
import { addFloatVector } from './vectors';
import { pastName, presentName } from '../graph-io-names';
import type { DecoderDims, DecoderLayerWeights } from './weight-set';

/** Graph values every layer reads: the per-row lengths and the rotary caches. */
export interface LayerInputs {
  seqlensK: string;
  totalSequenceLength: string;
  cosCache: string;
  sinCache: string;
  /** Gemma's sliding layers' own rotary caches, when their RoPE differs from the global layers'. */
  sliding?: RotaryCaches | null;
}

/** The residual stream between layers: the last sublayer's output not yet added, and the sum so far. */
export interface Stream {
  /** What the next norm adds to `residual` first (null before layer 0: `residual` is the embedding). */
  pending: string | null;
  residual: string;
}

/**
 * RMSNorm of `pending + residual` (SkipSimplifiedLayerNormalization, which also yields the sum:
 * the new residual), or of the residual alone before the first layer (SimplifiedLayerNormalization).
 */
export function addNorm(
  builder: GraphBuilder,
  stream: Stream,
  gamma: string,
  eps: number,
): { normed: string; residual: string } {
  const epsilon = { float: eps };
  if (!stream.pending) {
    const normed = builder.op('SimplifiedLayerNormalization', [stream.residual, gamma], {
      epsilon,
      axis: -1,
      stash_type: 1,
    });
    return { normed, residual: stream.residual };
  }
  const outputs = [`${builder.scope}/normed`, '', '', `${builder.scope}/residual`];
  builder.addNode(
    'SkipSimplifiedLayerNormalization',
    [stream.pending, stream.residual, gamma],
    { epsilon },
    4,
    outputs,
    MS_DOMAIN,
  );
  return { normed: outputs[0]!, residual: outputs[3]! };
}

/** Attention: packed (or separate) QKV, GroupQueryAttention with RoPE inside, the output projection. */
function addAttention(
  builder: GraphBuilder,
  layer: number,
  input: string,
  weights: DecoderLayerWeights,
  dims: DecoderDims,
  shared: LayerInputs,
  options: ProjectionOptions,
): string {
  const prefix = `model.layers.${layer}.self_attn`;
  const [query, key, value] = addAttentionInputs(builder, prefix, input, weights, dims, options);
  const gemma = dims.gemma ?? null;
  const rotary = gemma?.layerAttention[layer] === 'sliding' && shared.sliding ? shared.sliding : shared;
  const [context] = builder.addNode(
    'GroupQueryAttention',
    [
      query,
      key,
      value,
      pastName(layer, 'key'),
      pastName(layer, 'value'),
      shared.seqlensK,
      shared.totalSequenceLength,
      rotary.cosCache,
      rotary.sinCache,
    ],
    {
      num_heads: dims.numHeads,
      kv_num_heads: dims.numKvHeads,
      do_rotary: 1,
      rotary_interleaved: 0,
      ...(gemma ? gemmaAttentionAttributes(gemma, layer) : {}),
    },
    3,
    [`${builder.scope}/context`, presentName(layer, 'key'), presentName(layer, 'value')],
    MS_DOMAIN,
  );
  return addProjection(builder, context!, `${prefix}.o_proj`, weights.o, options);
}

/**
 * Gated MLP: packed (or separate) gate/up, SiLU as QuickGelu(alpha 1) = x·sigmoid(x) (GELU-tanh
 * for Gemma), ·up, down.
 */
function addMlp(
  builder: GraphBuilder,
  layer: number,
  input: string,
  weights: DecoderLayerWeights,
  dims: DecoderDims,
  options: ProjectionOptions,
): string {
  const prefix = `model.layers.${layer}.mlp`;
  const parts = [weights.gate, weights.up];
  const [gate, up] = canPack(parts)
    ? builder.addNode(
        'Split',
        [addPackedProjection(builder, input, `${prefix}.gate_up_proj`, parts, options)],
        { axis: -1 },
        2,
      )
    : [
        addProjection(builder, input, `${prefix}.gate_proj`, weights.gate, options),
        addProjection(builder, input, `${prefix}.up_proj`, weights.up, options),
      ];
  const activated = dims.gemma
    ? addGeluTanh(builder, gate!)
    : builder.msOp('QuickGelu', [gate!], { alpha: { float: 1 } });
  return addProjection(
    builder,
    builder.op('Mul', [activated, up!]),
    `${prefix}.down_proj`,
    weights.down,
    options,
  );
}

/** One decoder layer on the residual stream; returns the stream after it (its MLP output pending). */
export function addFusedLayer(
  builder: GraphBuilder,
  layer: number,
  stream: Stream,
  weights: DecoderLayerWeights,
  dims: DecoderDims,
  shared: LayerInputs,
  options: ProjectionOptions,
): Stream {
  builder.scope = `/model/layers.${layer}/attn`;
  const prefix = `model.layers.${layer}`;
  const inputNorm = addFloatVector(builder, `${prefix}.input_layernorm.weight`, weights.inputNorm);
  const attnIn = addNorm(builder, stream, inputNorm, dims.rmsNormEps);
  const outputNorms = weights.outputNorms ?? null;
  let attnOut = addAttention(builder, layer, attnIn.normed, weights, dims, shared, options);
  if (outputNorms)
    attnOut = addOutputNorm(
      builder,
      attnOut,
      `${prefix}.post_attention_norm.weight`,
      outputNorms.attention,
      dims.rmsNormEps,
    );
  builder.scope = `/model/layers.${layer}/mlp`;
  const postNorm = addFloatVector(
    builder,
    `${prefix}.post_attention_layernorm.weight`,
    weights.postAttentionNorm,
  );
  const mlpIn = addNorm(builder, { pending: attnOut, residual: attnIn.residual }, postNorm, dims.rmsNormEps);
  let mlpOut = addMlp(builder, layer, mlpIn.normed, weights, dims, options);
  if (outputNorms)
    mlpOut = addOutputNorm(
      builder,
      mlpOut,
      `${prefix}.post_ffw_norm.weight`,
      outputNorms.mlp,
      dims.rmsNormEps,
    );
  return { pending: mlpOut, residual: mlpIn.residual };
}

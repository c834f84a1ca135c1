// The fused decoder graph's inputs, outputs and operators, declared once: the writer declares
// exactly these, and a reader can know what a graph will look like before it is written (a GGUF
// listed before its conversion).

import type { Dim, ElementType } from './graph-builder';
import type { DecoderDims } from './weight-set';
import { GRAPH_IO, pastName, presentName } from '../graph-io-names';

/**
 * The fused form's inputs besides input_ids and the past: per row, its past plus new tokens
 * minus one (`seqlens_k`, int32 [batch]), and the longest row's past plus new tokens
 * (`total_sequence_length`, int32 scalar), GroupQueryAttention's own inputs, fed directly (no
 * mask subgraph); `num_logits_to_keep` (int64 scalar, 0 = every position) keeps the last rows.
 */
export const FUSED_INPUTS = {
  seqlensK: GRAPH_IO.seqlensK,
  totalSequenceLength: GRAPH_IO.totalSequenceLength,
  logitsToKeep: GRAPH_IO.numLogitsToKeep,
} as const;

/** The input a graph written with `attentionInputs: 'attention-mask'` takes instead of the lengths. */
export const ATTENTION_MASK = GRAPH_IO.attentionMask;

/** How a fused graph takes its rows' lengths: `lengths` (FUSED_INPUTS) or an `attention-mask`. */
export type AttentionInputs = 'lengths' | 'attention-mask';

/** One graph input or output: name, element type, dims (symbolic where they vary). */
export interface FusedIoTensor {
  name: string;
  type: ElementType;
  dims: Dim[];
}

/**
 * Every operator the fused writer may emit (`domain:opType`, '' for ONNX's own), whichever of
 * them a given weight set needs (float or block projections, fp16 casts, a tied head).
 */
export const FUSED_OPS = [
  'com.microsoft:GroupQueryAttention',
  'com.microsoft:SkipSimplifiedLayerNormalization',
  ':SimplifiedLayerNormalization',
  'com.microsoft:MatMulNBits',
  'com.microsoft:GatherBlockQuantized',
  'com.microsoft:QuickGelu',
  // Gemma's GELU and soft-capping (gemma.ts).
  'com.microsoft:FastGelu',
  ':Tanh',
  ':MatMul',
  ':Gather',
  ':Split',
  ':Mul',
  ':Add',
  ':Cast',
  ':Transpose',
  ':Reshape',
  ':Slice',
  ':Neg',
  ':Unsqueeze',
  // The rotary caches' constant subgraph (folded at load) and the attention-mask form's lengths.
  ':Range',
  ':Cos',
  ':Sin',
  ':ReduceSum',
  ':Sub',
  ':Shape',
] as const;

const BATCH = 'batch_size';

/** The graph's inputs and outputs for these dims, in the order the writer declares them. */
export function fusedIoOf(
  dims: Pick<DecoderDims, 'numLayers' | 'numKvHeads' | 'headDim' | 'vocabSize'>,
  attentionInputs: AttentionInputs = 'lengths',
): {
  inputs: FusedIoTensor[];
  outputs: FusedIoTensor[];
} {
  const lengths: FusedIoTensor[] =
    attentionInputs === 'attention-mask'
      ? [{ name: ATTENTION_MASK, type: 'int64', dims: [BATCH, GRAPH_IO.totalSequenceLength] }]
      : [
          { name: FUSED_INPUTS.seqlensK, type: 'int32', dims: [BATCH] },
          { name: FUSED_INPUTS.totalSequenceLength, type: 'int32', dims: [] },
        ];
  const inputs: FusedIoTensor[] = [
    { name: GRAPH_IO.inputIds, type: 'int64', dims: [BATCH, 'sequence_length'] },
    ...lengths,
    { name: FUSED_INPUTS.logitsToKeep, type: 'int64', dims: [] },
  ];
  const outputs: FusedIoTensor[] = [
    { name: GRAPH_IO.logits, type: 'float32', dims: [BATCH, 'kept_length', dims.vocabSize] },
  ];
  const kv = (length: string) => [BATCH, dims.numKvHeads, length, dims.headDim];
  for (let layer = 0; layer < dims.numLayers; layer++)
    for (const kind of ['key', 'value'] as const) {
      inputs.push({ name: pastName(layer, kind), type: 'float32', dims: kv('past_sequence_length') });
      outputs.push({ name: presentName(layer, kind), type: 'float32', dims: kv('present_sequence_length') });
    }
  return { inputs, outputs };
}

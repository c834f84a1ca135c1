// A GGUF model's tensors as the fused graph writer's input (DecoderWeightSet), read one tensor at
// a time: float tensors as stored, block-quantized matrices mapped to MatMulNBits blocks without
// going through float where a mapping exists (to-matmul-blocks.ts), Q/K rows put back in Hugging
// Face order when llama.cpp permuted them.

import { blockQuantize } from '../fused-graph';
import type {
  DecoderDims,
  DecoderLayerWeights,
  DecoderWeightSet,
  FloatWeight,
  MatrixWeight,
  RopeScaling,
} from '../fused-graph';
import { dequantize } from './ggml-dequantize';
import { GgufModelError } from './gguf-architecture';
import type { GgufSetTensor } from './gguf-files';
import type { GgufModel } from './gguf-model';
import { GgufTensorReader } from './gguf-tensor-reader';
import { unpermuteRows } from './rope-rows';
import { blockFidelityOf, toMatMulBlocks } from './to-matmul-blocks';

/** Block size of an embedding re-quantized to symmetric 8 bits (the writer's GatherBlockQuantized takes no zero points). */
const EMBEDDING_BLOCK = 32;

/** Told after each tensor: bytes of the GGUF read and converted so far, of the tensors' total. */
export type ConversionProgress = (bytesDone: number, bytesTotal: number) => void;

/**
 * Reads every tensor the decoder uses and returns the writer's weight set. Throws GgufModelError
 * naming a tensor that is missing or of a type with no mapping; never writes the file.
 */
export function ggufWeightSet(model: GgufModel, onProgress: ConversionProgress = () => {}): DecoderWeightSet {
  const reader = new GgufTensorReader();
  const bytesTotal = [...model.set.tensors.values()].reduce((sum, t) => sum + t.numBytes, 0);
  let bytesDone = 0;
  const read = (name: string): { tensor: GgufSetTensor; bytes: Uint8Array } => {
    const tensor = model.set.tensors.get(name);
    if (!tensor) throw new GgufModelError(`has no ${name} tensor`);
    const bytes = reader.read(tensor);
    bytesDone += tensor.numBytes;
    onProgress(bytesDone, bytesTotal);
    return { tensor, bytes };
  };
  try {
    const dims = decoderDimsOf(model, read);
    const matrix = (name: string) => matrixOf(read(name));
    const vector = (name: string) => vectorOf(read(name));
    const ropeRows = (weight: MatrixWeight, numHeads: number) =>
      model.isRopePermuted ? unpermuteRows(weight, numHeads, dims.headDim) : weight;
    const embedding = embeddingOf(read('token_embd.weight'), dims.hiddenSize);
    const layers: DecoderLayerWeights[] = [];
    for (let i = 0; i < dims.numLayers; i++) {
      const at = (part: string) => `blk.${i}.${part}.weight`;
      layers.push({
        inputNorm: vector(at('attn_norm')),
        q: ropeRows(matrix(at('attn_q')), dims.numHeads),
        k: ropeRows(matrix(at('attn_k')), dims.numKvHeads),
        v: matrix(at('attn_v')),
        o: matrix(at('attn_output')),
        postAttentionNorm: vector(at('ffn_norm')),
        gate: matrix(at('ffn_gate')),
        up: matrix(at('ffn_up')),
        down: matrix(at('ffn_down')),
      });
    }
    const finalNorm = vector('output_norm.weight');
    const lmHead = dims.isTiedEmbedding ? null : matrix('output.weight');
    return { dims, embedding, layers, finalNorm, lmHead };
  } finally {
    reader.close();
  }
}

/** The writer's dims from the GGUF's, reading `rope_freqs.weight` when the file scales RoPE by it. */
function decoderDimsOf(
  model: GgufModel,
  read: (name: string) => { tensor: GgufSetTensor; bytes: Uint8Array },
): DecoderDims {
  const { ropeScaling, ...rest } = model.dims;
  let scaling: RopeScaling | null = null;
  if (ropeScaling?.type === 'linear') scaling = ropeScaling;
  else if (ropeScaling?.type === 'frequency-factors') {
    const factors = floatsOf(read('rope_freqs.weight'));
    scaling = { type: 'frequency-factors', factors };
  }
  return { ...rest, ropeScaling: scaling };
}

/** A [rows, cols] matrix (ggml dims [cols, rows]): float as stored, or MatMulNBits blocks. */
function matrixOf({ tensor, bytes }: { tensor: GgufSetTensor; bytes: Uint8Array }): MatrixWeight {
  const [numCols, numRows] = tensor.dims as [number, number];
  const float = floatDataOf(tensor, bytes);
  if (float) return { ...float, kind: 'float', shape: [numRows, numCols], order: 'out-in' } as FloatWeight;
  // storage-plan.ts refuses such files at listing; a file changed since is refused here alike.
  if (blockFidelityOf(tensor.type.name) === null)
    throw new GgufModelError(
      `tensor ${tensor.name} is ${tensor.type.name}, which First Frame cannot convert yet`,
    );
  return toMatMulBlocks(tensor.type.name, bytes, numRows, numCols);
}

/**
 * The embedding: float as stored, symmetric blocks as mapped, and anything with zero points (or
 * blocks that do not tile the hidden size) re-quantized to symmetric 8-bit blocks, which the
 * writer's GatherBlockQuantized takes.
 */
function embeddingOf(read: { tensor: GgufSetTensor; bytes: Uint8Array }, hiddenSize: number): MatrixWeight {
  const weight = matrixOf(read);
  if (weight.kind === 'float' || (!weight.zeroPoints && hiddenSize % weight.blockSize === 0)) return weight;
  const { tensor, bytes } = read;
  const rows = dequantize(tensor.type.name, bytes, weight.numRows * weight.numCols);
  const q = blockQuantize({
    rows,
    numRows: weight.numRows,
    numCols: weight.numCols,
    bits: 8,
    blockSize: EMBEDDING_BLOCK,
    scheme: 'symmetric',
  });
  return { ...weight, bits: 8, blockSize: EMBEDDING_BLOCK, data: q.data, scales: q.scales, zeroPoints: null };
}

/** A norm vector, kept in its float type. */
function vectorOf({ tensor, bytes }: { tensor: GgufSetTensor; bytes: Uint8Array }): FloatWeight {
  const float = floatDataOf(tensor, bytes);
  if (!float)
    throw new GgufModelError(`tensor ${tensor.name} is ${tensor.type.name}; a float vector is expected`);
  return { ...float, kind: 'float', shape: [tensor.dims[0]!], order: 'out-in' } as FloatWeight;
}

function floatsOf(read: { tensor: GgufSetTensor; bytes: Uint8Array }): Float32Array {
  if (read.tensor.type.name !== 'F32')
    throw new GgufModelError(`tensor ${read.tensor.name} is ${read.tensor.type.name}; F32 is expected`);
  return new Float32Array(read.bytes.buffer, read.bytes.byteOffset, read.bytes.byteLength / 4);
}

function floatDataOf(tensor: GgufSetTensor, bytes: Uint8Array) {
  const { buffer, byteOffset, byteLength } = bytes;
  switch (tensor.type.name) {
    case 'F32':
      return { dtype: 'float32' as const, data: new Float32Array(buffer, byteOffset, byteLength / 4) };
    case 'F16':
      return { dtype: 'float16' as const, data: new Uint16Array(buffer, byteOffset, byteLength / 2) };
    case 'BF16':
      return { dtype: 'bfloat16' as const, data: new Uint16Array(buffer, byteOffset, byteLength / 2) };
    default:
      return null;
  }
}

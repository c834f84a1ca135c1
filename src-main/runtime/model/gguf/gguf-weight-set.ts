// A GGUF model's tensors as the fused graph writer's input (DecoderWeightSet), read one tensor at
// a time: float tensors as stored, block-quantized matrices mapped to MatMulNBits blocks without
// going through float where a mapping exists (to-matmul-blocks.ts), Q/K rows put back in Hugging
// Face order when llama.cpp permuted them, stacked q/k/v and gate/up cut apart (stacked-projections.ts).

import { blockQuantize } from '../fused-graph/block-quantize';
import type {
  BlockWeight,
  DecoderDims,
  DecoderWeightSet,
  FloatWeight,
  MatrixWeight,
  StreamedWeightSet,
} from '../fused-graph/weight-set';
import type { RopeScaling } from '../rope';
import { dequantize } from './ggml-dequantize';
import { EXTRA_TENSORS, GgufModelError, layerTensorsOf } from './gguf-architecture';
import type { GgufSetTensor } from './gguf-files';
import type { GgufModel } from './gguf-model';
import { GgufTensorReader } from './gguf-tensor-reader';
import type { TensorRead } from './gguf-tensor-reader';
import { unpermuteRows } from './rope-rows';
import { gateUpReads, qkvReads } from './stacked-projections';
import { blockLayoutOf, toMatMulBlocks } from './to-matmul-blocks';
import type { BlockLayout } from './to-matmul-blocks';

/** An embedding re-quantized to symmetric 8 bits (the writer's GatherBlockQuantized takes no zero points or offsets). */
export const REQUANTIZED_EMBEDDING: BlockLayout = { bits: 8, blockSize: 32, hasOffsets: false, groupSize: 0 };

/** Told after each tensor: bytes of the GGUF read and converted so far, of the tensors' total. */
export type ConversionProgress = (bytesDone: number, bytesTotal: number) => void;

/** The tensors the decoder reads (the embedding first, then layer by layer, the final norm, the head). */
function tensorNamesOf(model: GgufModel): string[] {
  const extras = model.extras.flatMap((extra) => EXTRA_TENSORS[extra].map(([name]) => name));
  const perLayer = (i: number) => [
    ...layerTensorsOf(model.dims, model.layout).map(([part]) => `blk.${i}.${part}.weight`),
    ...extras.map((name) => `blk.${i}.${name}`),
  ];
  return [
    ...(model.dims.ropeScaling?.type === 'frequency-factors' ? [model.dims.ropeScaling.tensor] : []),
    'token_embd.weight',
    ...Array.from({ length: model.dims.numLayers }, (_, i) => perLayer(i)).flat(),
    'output_norm.weight',
    ...(model.dims.isTiedEmbedding ? [] : ['output.weight']),
  ];
}

/**
 * The GGUF's weights as the streamed writer takes them: each part read from the file when asked
 * for, so a conversion holds about one layer. Throws GgufModelError naming a tensor that is
 * missing or of a type with no mapping; never writes the file. `close()` releases the shards.
 */
export function ggufWeightSource(
  model: GgufModel,
  onProgress: ConversionProgress = () => {},
): StreamedWeightSet & { close(): void } {
  const reader = new GgufTensorReader();
  const bytesTotal = tensorNamesOf(model).reduce(
    (sum, name) => sum + (model.set.tensors.get(name)?.numBytes ?? 0),
    0,
  );
  let bytesDone = 0;
  const read = (name: string): TensorRead => {
    const tensor = model.set.tensors.get(name);
    if (!tensor) throw new GgufModelError(`has no ${name} tensor`);
    const bytes = reader.read(tensor);
    bytesDone += tensor.numBytes;
    onProgress(bytesDone, bytesTotal);
    return { tensor, bytes };
  };
  const dims = decoderDimsOf(model, read);
  const matrix = (name: string) => matrixOf(read(name));
  const vector = (name: string) => vectorOf(read(name));
  const ropeRows = (weight: MatrixWeight, numHeads: number) =>
    model.isRopePermuted ? unpermuteRows(weight, numHeads, dims.headDim) : weight;
  return {
    dims,
    embedding: () => embeddingOf(read('token_embd.weight'), dims.hiddenSize),
    layer: (i) => {
      const at = (part: string) => `blk.${i}.${part}.weight`;
      // Read in file order, so progress runs forward.
      const inputNorm = vector(at('attn_norm'));
      const [q, k, v] = qkvReads(i, model.layout, dims, read).map(matrixOf) as [
        MatrixWeight,
        MatrixWeight,
        MatrixWeight,
      ];
      const o = matrix(at('attn_output'));
      const postAttentionNorm = vector(at('ffn_norm'));
      const [gate, up] = gateUpReads(i, model.layout, dims.intermediateSize, read).map(matrixOf) as [
        MatrixWeight,
        MatrixWeight,
      ];
      return {
        inputNorm,
        q: ropeRows(q, dims.numHeads),
        k: ropeRows(k, dims.numKvHeads),
        v,
        o,
        postAttentionNorm,
        gate,
        up,
        down: matrix(at('ffn_down')),
        qkvBias: model.extras.includes('qkv-bias')
          ? {
              q: vector(`blk.${i}.attn_q.bias`),
              k: vector(`blk.${i}.attn_k.bias`),
              v: vector(`blk.${i}.attn_v.bias`),
            }
          : null,
        qkNorm: model.extras.includes('qk-norm')
          ? { q: vector(at('attn_q_norm')), k: vector(at('attn_k_norm')) }
          : null,
        outputNorms: model.extras.includes('output-norms')
          ? { attention: vector(at('post_attention_norm')), mlp: vector(at('post_ffw_norm')) }
          : null,
      };
    },
    finalNorm: () => vector('output_norm.weight'),
    lmHead: () => (dims.isTiedEmbedding ? null : matrix('output.weight')),
    close: () => reader.close(),
  };
}

/** Every weight read into memory at once (tests, small models): ggufWeightSource gathered. */
export function ggufWeightSet(model: GgufModel, onProgress: ConversionProgress = () => {}): DecoderWeightSet {
  const source = ggufWeightSource(model, onProgress);
  try {
    const embedding = source.embedding();
    const layers = Array.from({ length: source.dims.numLayers }, (_, i) => source.layer(i));
    return { dims: source.dims, embedding, layers, finalNorm: source.finalNorm(), lmHead: source.lmHead() };
  } finally {
    source.close();
  }
}

/** The writer's dims from the GGUF's, reading the factors tensor when the file scales RoPE by one. */
function decoderDimsOf(model: GgufModel, read: (name: string) => TensorRead): DecoderDims {
  const { ropeScaling, ...rest } = model.dims;
  let scaling: RopeScaling | null = null;
  if (ropeScaling?.type === 'linear') scaling = ropeScaling;
  else if (ropeScaling?.type === 'frequency-factors') {
    const factors = floatsOf(read(ropeScaling.tensor));
    scaling = { type: 'frequency-factors', factors, attentionFactor: ropeScaling.attentionFactor };
  }
  return { ...rest, ropeScaling: scaling };
}

/** A [rows, cols] matrix (ggml dims [cols, rows]): float as stored, or MatMulNBits blocks. */
function matrixOf({ tensor, bytes }: TensorRead): MatrixWeight {
  const [numCols, numRows] = tensor.dims as [number, number];
  const float = floatDataOf(tensor, bytes);
  if (float) return { ...float, kind: 'float', shape: [numRows, numCols], order: 'out-in' } as FloatWeight;
  // storage-plan.ts refuses such files at listing; a file changed since is refused here alike.
  if (blockLayoutOf(tensor.type.name) === null)
    throw new GgufModelError(
      `tensor ${tensor.name} is ${tensor.type.name}, which First Frame cannot convert yet`,
    );
  return toMatMulBlocks(tensor.type.name, bytes, numRows, numCols);
}

/** Rows re-quantized per piece: dequantizing a whole 128k-row embedding to float took 1–2 GB at once. */
const REQUANTIZE_ROWS = 4096;

/**
 * The embedding: float as stored, symmetric blocks as mapped, and anything with zero points or
 * offsets (or blocks that do not tile the hidden size) re-quantized to symmetric 8-bit blocks,
 * which the writer's GatherBlockQuantized takes: REQUANTIZE_ROWS rows at a time, so the
 * conversion holds the file's bytes, the result, and one piece of floats.
 */
function embeddingOf(read: TensorRead, hiddenSize: number): MatrixWeight {
  const mapped = matrixOf(read);
  if (mapped.kind === 'float') return mapped;
  if (!mapped.zeroPoints && !mapped.offsets && hiddenSize % mapped.blockSize === 0) return mapped;
  const { numRows, numCols } = mapped;
  const requantized = requantizedRows(read, numRows, numCols);
  return { ...mapped, ...requantized, zeroPoints: null, offsets: null, factored: null };
}

/** `read`'s rows dequantized and quantized again to REQUANTIZED_EMBEDDING's blocks, piece by piece. */
function requantizedRows(
  { tensor, bytes }: TensorRead,
  numRows: number,
  numCols: number,
): Pick<BlockWeight, 'bits' | 'blockSize' | 'data' | 'scales'> {
  const { bits, blockSize } = REQUANTIZED_EMBEDDING;
  const rowBytes = bytes.byteLength / numRows; // ggml rows are whole blocks, stored one after another
  const numBlocks = numCols / blockSize;
  const data = new Uint8Array((numRows * numCols * bits) / 8);
  const scales = new Float32Array(numRows * numBlocks);
  for (let start = 0; start < numRows; start += REQUANTIZE_ROWS) {
    const count = Math.min(REQUANTIZE_ROWS, numRows - start);
    const piece = bytes.subarray(start * rowBytes, (start + count) * rowBytes);
    const q = blockQuantize({
      rows: dequantize(tensor.type.name, piece, count * numCols),
      numRows: count,
      numCols,
      bits,
      blockSize,
      scheme: 'symmetric',
    });
    data.set(q.data, (start * numCols * bits) / 8);
    scales.set(q.scales, start * numBlocks);
  }
  return { bits, blockSize, data, scales };
}

/** A norm vector, kept in its float type. */
function vectorOf({ tensor, bytes }: TensorRead): FloatWeight {
  const float = floatDataOf(tensor, bytes);
  if (!float)
    throw new GgufModelError(`tensor ${tensor.name} is ${tensor.type.name}; a float vector is expected`);
  return { ...float, kind: 'float', shape: [tensor.dims[0]!], order: 'out-in' } as FloatWeight;
}

function floatsOf(read: TensorRead): Float32Array {
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

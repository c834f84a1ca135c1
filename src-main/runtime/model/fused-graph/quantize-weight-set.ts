import { blockQuantize } from './block-quantize';
import type { QuantBits, QuantScheme } from './block-quantize';
import { outInBits } from './float-matrix';
import type { BlockWeight, DecoderWeightSet, MatrixWeight } from './weight-set';

/** How to block-quantize a weight set's float matrices. */
export interface WeightSetQuantization {
  bits: QuantBits;
  blockSize: number;
  scheme: QuantScheme;
  /** Also the embedding (GatherBlockQuantized); otherwise it stays float and a tied head is quantized apart. */
  isQuantizingEmbeddings: boolean;
}

/** A quantized weight set and the matrices left in float, with the reason. */
export interface QuantizedWeightSet {
  set: DecoderWeightSet;
  keptFloat: Array<{ weight: string; reason: string }>;
}

/** A float matrix's blocks (out × in rows); a block weight is kept as it is. */
function quantized(weight: MatrixWeight, q: WeightSetQuantization): BlockWeight {
  if (weight.kind === 'blocks') return weight;
  const outIn = outInBits(weight, 'float32');
  const rows = new Float32Array(outIn.bits.buffer, outIn.bits.byteOffset, outIn.bits.length);
  const blocks = blockQuantize({
    rows,
    numRows: outIn.numRows,
    numCols: outIn.numCols,
    bits: q.bits,
    blockSize: q.blockSize,
    scheme: q.scheme,
  });
  return {
    kind: 'blocks',
    bits: q.bits,
    blockSize: q.blockSize,
    numRows: outIn.numRows,
    numCols: outIn.numCols,
    data: blocks.data,
    scales: blocks.scales,
    zeroPoints: blocks.zeroPoints,
  };
}

/** Why the embedding stays float, or null when it is quantized. */
function embeddingKeptReason(set: DecoderWeightSet, q: WeightSetQuantization): string | null {
  if (set.embedding.kind === 'blocks') return null;
  if (!q.isQuantizingEmbeddings) return 'embeddings kept in float by request';
  if (q.scheme === 'asymmetric') return 'GatherBlockQuantized is written symmetric only';
  if (set.dims.hiddenSize % q.blockSize !== 0)
    return `hidden size ${set.dims.hiddenSize} is not a multiple of the block size ${q.blockSize}`;
  return null;
}

/**
 * Every float matrix block-quantized (llama.cpp's q4_0 / q8_0 with symmetric blocks of 32). An
 * embedding that stays float (see embeddingKeptReason) leaves a tied head to be quantized as its
 * own weight: the graph then has an untied head, the same values as the tied one's blocks.
 */
export function quantizeWeightSet(set: DecoderWeightSet, q: WeightSetQuantization): QuantizedWeightSet {
  const layers = set.layers.map((layer) => ({
    ...layer,
    q: quantized(layer.q, q),
    k: quantized(layer.k, q),
    v: quantized(layer.v, q),
    o: quantized(layer.o, q),
    gate: quantized(layer.gate, q),
    up: quantized(layer.up, q),
    down: quantized(layer.down, q),
  }));
  const keptReason = embeddingKeptReason(set, q);
  const embedding = keptReason ? set.embedding : quantized(set.embedding, q);
  const head = set.lmHead ?? (keptReason ? set.embedding : null);
  return {
    set: {
      dims: { ...set.dims, isTiedEmbedding: head === null },
      embedding,
      layers,
      finalNorm: set.finalNorm,
      lmHead: head ? quantized(head, q) : null,
    },
    keptFloat: keptReason ? [{ weight: 'embedding', reason: keptReason }] : [],
  };
}

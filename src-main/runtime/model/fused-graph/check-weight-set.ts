import type {
  BlockWeight,
  DecoderDims,
  DecoderLayerWeights,
  DecoderWeightSet,
  FloatWeight,
  MatrixWeight,
} from './weight-set';

/** A weight set the fused writer cannot take; `weight` names the weight or dimension at fault. */
export class WeightSetError extends Error {
  constructor(
    readonly weight: string,
    problem: string,
  ) {
    super(`${weight}: ${problem}`);
    this.name = 'WeightSetError';
  }
}

const DIM_FIELDS = [
  'numLayers',
  'hiddenSize',
  'numHeads',
  'numKvHeads',
  'headDim',
  'intermediateSize',
  'vocabSize',
  'contextLength',
] as const;

/** Checks the dims alone (positive sizes, heads that divide, RoPE scaling that fits the head). */
export function checkDims(dims: DecoderDims): void {
  for (const field of DIM_FIELDS) {
    const value = dims[field];
    if (!Number.isInteger(value) || value <= 0)
      throw new WeightSetError(`dims.${field}`, `must be a positive integer, got ${value}`);
  }
  if (dims.numHeads % dims.numKvHeads !== 0)
    throw new WeightSetError('dims.numKvHeads', `${dims.numKvHeads} must divide numHeads (${dims.numHeads})`);
  if (dims.headDim % 2 !== 0)
    throw new WeightSetError('dims.headDim', `must be even for RoPE, got ${dims.headDim}`);
  for (const field of ['ropeTheta', 'rmsNormEps'] as const)
    if (!(dims[field] > 0) || !Number.isFinite(dims[field]))
      throw new WeightSetError(`dims.${field}`, `must be a positive number, got ${dims[field]}`);
  const scaling = dims.ropeScaling;
  if (scaling?.type === 'frequency-factors' && scaling.factors.length !== dims.headDim / 2)
    throw new WeightSetError(
      'dims.ropeScaling',
      `has ${scaling.factors.length} frequency factors; headDim / 2 = ${dims.headDim / 2}`,
    );
  if (scaling && scaling.type !== 'frequency-factors' && !(scaling.factor > 0))
    throw new WeightSetError('dims.ropeScaling', `factor must be positive, got ${scaling.factor}`);
  const gemma = dims.gemma;
  if (gemma && gemma.layerAttention.length !== dims.numLayers)
    throw new WeightSetError(
      'dims.gemma.layerAttention',
      `names ${gemma.layerAttention.length} layers; numLayers is ${dims.numLayers}`,
    );
  if (gemma && !(Number.isInteger(gemma.slidingWindow) && gemma.slidingWindow > 0))
    throw new WeightSetError(
      'dims.gemma.slidingWindow',
      `must be a positive integer, got ${gemma.slidingWindow}`,
    );
}

function checkFloat(name: string, weight: FloatWeight, shape: number[]): void {
  const count = shape.reduce((a, b) => a * b, 1);
  const given = weight.shape;
  const isMatrix = shape.length === 2;
  const expected = isMatrix && weight.order === 'in-out' ? [shape[1]!, shape[0]!] : shape;
  if (given.length !== expected.length || given.some((size, i) => size !== expected[i]))
    throw new WeightSetError(name, `has shape [${given}] (${weight.order}); expected [${expected}]`);
  if (weight.data.length !== count)
    throw new WeightSetError(name, `holds ${weight.data.length} values for shape [${given}]`);
}

function checkBlocks(name: string, weight: BlockWeight, numRows: number, numCols: number): void {
  const { bits, blockSize } = weight;
  if (bits !== 4 && bits !== 8)
    throw new WeightSetError(name, `has ${String(bits)} bits; 4 or 8 are written`);
  if (!Number.isInteger(blockSize) || blockSize < 16 || (blockSize & (blockSize - 1)) !== 0)
    throw new WeightSetError(name, `block size ${blockSize} is not a power of two ≥ 16`);
  if (weight.numRows !== numRows || weight.numCols !== numCols)
    throw new WeightSetError(
      name,
      `is ${weight.numRows} × ${weight.numCols} (out × in); expected ${numRows} × ${numCols}`,
    );
  const numBlocks = Math.ceil(numCols / blockSize);
  const expect = (part: string, actual: number, wanted: number) => {
    if (actual !== wanted)
      throw new WeightSetError(name, `${part} has ${actual} elements; expected ${wanted}`);
  };
  expect('data', weight.data.length, numRows * numBlocks * ((blockSize * bits) / 8));
  expect('scales', weight.scales.length, numRows * numBlocks);
  if (weight.zeroPoints)
    expect('zeroPoints', weight.zeroPoints.length, numRows * Math.ceil((numBlocks * bits) / 8));
  if (!weight.offsets) return;
  expect('offsets', weight.offsets.length, numRows * numBlocks);
  if (numCols % blockSize !== 0)
    throw new WeightSetError(
      name,
      `has offsets but ${numCols} inputs are not a multiple of block size ${blockSize}`,
    );
}

function checkMatrix(name: string, weight: MatrixWeight, numRows: number, numCols: number): void {
  if (weight.kind === 'float') checkFloat(name, weight, [numRows, numCols]);
  else checkBlocks(name, weight, numRows, numCols);
}

/** Checks the embedding against the dims (GatherBlockQuantized takes symmetric blocks that tile the hidden size). */
export function checkEmbedding(dims: DecoderDims, embedding: MatrixWeight): void {
  const { vocabSize, hiddenSize } = dims;
  checkMatrix('embedding', embedding, vocabSize, hiddenSize);
  if (embedding.kind !== 'blocks') return;
  if (embedding.zeroPoints || embedding.offsets)
    throw new WeightSetError(
      'embedding',
      'block-quantized with zero points or offsets is not written (symmetric only)',
    );
  if (hiddenSize % embedding.blockSize !== 0)
    throw new WeightSetError(
      'embedding',
      `hidden size ${hiddenSize} is not a multiple of its block size ${embedding.blockSize}`,
    );
}

/** Checks the LM head: present exactly when the embedding is not tied, [vocab, hidden]. */
export function checkHead(dims: DecoderDims, lmHead: MatrixWeight | null): void {
  if (dims.isTiedEmbedding && lmHead)
    throw new WeightSetError('lmHead', 'is given but dims.isTiedEmbedding says the embedding is the head');
  if (!dims.isTiedEmbedding && !lmHead)
    throw new WeightSetError('lmHead', 'is missing and dims.isTiedEmbedding is false');
  if (lmHead) checkMatrix('lmHead', lmHead, dims.vocabSize, dims.hiddenSize);
}

/** Checks one layer's weights against the dims; errors name `layers.<index>.<part>`. */
export function checkLayer(dims: DecoderDims, index: number, layer: DecoderLayerWeights): void {
  const at = (part: string) => `layers.${index}.${part}`;
  const qWidth = dims.numHeads * dims.headDim;
  const kvWidth = dims.numKvHeads * dims.headDim;
  checkFloat(at('inputNorm'), layer.inputNorm, [dims.hiddenSize]);
  checkFloat(at('postAttentionNorm'), layer.postAttentionNorm, [dims.hiddenSize]);
  checkMatrix(at('q'), layer.q, qWidth, dims.hiddenSize);
  checkMatrix(at('k'), layer.k, kvWidth, dims.hiddenSize);
  checkMatrix(at('v'), layer.v, kvWidth, dims.hiddenSize);
  checkMatrix(at('o'), layer.o, dims.hiddenSize, qWidth);
  checkMatrix(at('gate'), layer.gate, dims.intermediateSize, dims.hiddenSize);
  checkMatrix(at('up'), layer.up, dims.intermediateSize, dims.hiddenSize);
  checkMatrix(at('down'), layer.down, dims.hiddenSize, dims.intermediateSize);
  if (layer.qkvBias) {
    checkFloat(at('qkvBias.q'), layer.qkvBias.q, [qWidth]);
    checkFloat(at('qkvBias.k'), layer.qkvBias.k, [kvWidth]);
    checkFloat(at('qkvBias.v'), layer.qkvBias.v, [kvWidth]);
  }
  if (layer.qkNorm) {
    checkFloat(at('qkNorm.q'), layer.qkNorm.q, [dims.headDim]);
    checkFloat(at('qkNorm.k'), layer.qkNorm.k, [dims.headDim]);
  }
  if (layer.outputNorms) {
    checkFloat(at('outputNorms.attention'), layer.outputNorms.attention, [dims.hiddenSize]);
    checkFloat(at('outputNorms.mlp'), layer.outputNorms.mlp, [dims.hiddenSize]);
  }
}

/** Checks the final norm: a float vector of the hidden size. */
export function checkFinalNorm(dims: DecoderDims, finalNorm: FloatWeight): void {
  checkFloat('finalNorm', finalNorm, [dims.hiddenSize]);
}

/**
 * Checks a weight set against its own dims and the combinations the writer accepts (see
 * DecoderWeightSet); throws WeightSetError naming the first weight or dimension at fault.
 */
export function checkWeightSet(set: DecoderWeightSet): void {
  const { dims } = set;
  checkDims(dims);
  if (set.layers.length !== dims.numLayers)
    throw new WeightSetError(
      'layers',
      `holds ${set.layers.length} layers; dims.numLayers is ${dims.numLayers}`,
    );
  checkEmbedding(dims, set.embedding);
  checkHead(dims, set.lmHead);
  set.layers.forEach((layer, i) => checkLayer(dims, i, layer));
  checkFinalNorm(dims, set.finalNorm);
}

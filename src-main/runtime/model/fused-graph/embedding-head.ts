import type { GraphBuilder } from './graph-builder';
import { outInBits } from './float-matrix';
import { addBlockScales } from './block-scales';
import { addFloatMatrix, addMatMulNBits, addProjection, floatStorageOf } from './projections';
import type { ProjectionOptions } from './projections';
import type { BlockWeight, FloatWeight, MatrixWeight } from './weight-set';

const EMBED = 'model.embed_tokens.weight';

/** The embedding's output and, for a tied model, how the LM head reads the same weight. */
export interface Embedding {
  /** float32 [batch, sequence, hidden]. */
  hidden: string;
  /** logits [.., vocab] of `input` [.., hidden] by the embedding (tied head), named `outputName`. */
  tiedHead: (input: string, outputName: string) => string;
}

/** A float embedding: Gather rows; the tied head multiplies by its transpose (folded at load). */
function addFloatEmbedding(
  builder: GraphBuilder,
  weight: FloatWeight,
  options: ProjectionOptions,
): Embedding {
  const table = addFloatMatrix(builder, EMBED, outInBits(weight, floatStorageOf(weight, options)));
  return {
    hidden: builder.op('Gather', [table, 'input_ids'], { axis: 0 }),
    tiedHead: (input, outputName) =>
      builder.op('MatMul', [input, builder.op('Transpose', [table], { perm: [1, 0] })], {}, outputName),
  };
}

/**
 * A block embedding: GatherBlockQuantized over data [vocab, hidden × bits / 8] yields
 * [batch, sequence, hidden] in one node; the tied head's MatMulNBits reads the same bytes as
 * [vocab, blocks, blob] through a Reshape ONNX Runtime folds at load, so the file holds them once.
 */
function addBlockEmbedding(
  builder: GraphBuilder,
  weight: BlockWeight,
  options: ProjectionOptions,
): Embedding {
  const { bits, blockSize, numRows, numCols } = weight;
  const numBlocks = numCols / blockSize;
  const data = builder.addInitializer(
    `${EMBED}.q${bits}`,
    'uint8',
    [numRows, (numCols * bits) / 8],
    weight.data,
  );
  const scales = addBlockScales(builder, EMBED, weight);
  const hidden = builder.msOp('GatherBlockQuantized', [data, 'input_ids', scales], {
    gather_axis: 0,
    quantize_axis: 1,
    block_size: blockSize,
    bits,
  });
  // The head needs the layout only: the bytes are the initializers above (a streamed write drops them).
  const layout = { bits, blockSize, numRows, numCols };
  const tiedHead = (input: string, outputName: string) => {
    const blobShape = builder.addInt64Constant('blob_shape', [numRows, numBlocks, (blockSize * bits) / 8]);
    const blobs = builder.op('Reshape', [data, blobShape]);
    return addMatMulNBits(builder, input, [blobs, scales], layout, options, outputName);
  };
  return { hidden, tiedHead };
}

/** Adds the token embedding of `input_ids`. */
export function addEmbedding(
  builder: GraphBuilder,
  embedding: MatrixWeight,
  options: ProjectionOptions,
): Embedding {
  builder.scope = '/model/embed_tokens';
  return embedding.kind === 'float'
    ? addFloatEmbedding(builder, embedding, options)
    : addBlockEmbedding(builder, embedding, options);
}

/** The LM head writing `outputName`: the untied weight's projection, or the embedding read back (tied). */
export function addLmHead(
  builder: GraphBuilder,
  lmHead: MatrixWeight | null,
  embedding: Embedding,
  input: string,
  options: ProjectionOptions,
  outputName = 'logits',
): void {
  builder.scope = '/lm_head';
  if (lmHead) addProjection(builder, input, 'lm_head', lmHead, options, outputName);
  else embedding.tiedHead(input, outputName);
}

/**
 * The largest model dimensions First Frame tries to run. A file may claim anything (a context
 * length of 2^53−1 lists as a number like any other), but buffers are sized by these: the
 * rotary tables hold context length × head size floats, a row of logits holds the vocabulary,
 * a layer's weights hold hidden × intermediate. Past them a buffer cannot be allocated, and
 * ONNX Runtime would fail at the first request with its own internal text; so a listing refuses
 * the model instead, naming the field. Each bound is well above any published model's.
 */
export const SHAPE_LIMITS = {
  maxPositions: 1_048_576,
  numLayers: 1_024,
  numHeads: 1_024,
  numKvHeads: 1_024,
  headDim: 1_024,
  hiddenSize: 65_536,
  intermediateSize: 262_144,
  vocabSize: 2_097_152,
} as const;

/** One of the bounded dimensions. */
export type ShapeDimension = keyof typeof SHAPE_LIMITS;

/** The rotary tables' bytes (cos and sin, float32) at most: context length × head size × 4. */
export const MAX_ROTARY_BYTES = 1024 ** 3;

/** A dimension as a file spells it (`max_position_embeddings`, `llama.context_length`) and its value. */
export interface NamedDimension {
  name: string;
  dimension: ShapeDimension;
  value: number;
}

/**
 * Why a model with these dimensions cannot run, as the field to name and what is wrong with it
 * (`is 9,007,199,254,740,991, more than First Frame can run (at most 1,048,576)`), or null.
 */
export function shapeBeyondLimits(
  dimensions: readonly NamedDimension[],
): { field: string; problem: string } | null {
  for (const { name, dimension, value } of dimensions) {
    const max = SHAPE_LIMITS[dimension];
    if (value > max)
      return {
        field: name,
        problem: `is ${plain(value)}, more than First Frame can run (at most ${plain(max)})`,
      };
  }
  const find = (dimension: ShapeDimension) => dimensions.find((d) => d.dimension === dimension);
  const context = find('maxPositions');
  const head = find('headDim');
  if (context && head && context.value * head.value * 4 > MAX_ROTARY_BYTES)
    return {
      field: context.name,
      problem:
        `(${plain(context.value)}) with ${head.name} ${plain(head.value)} needs rotary tables ` +
        `larger than First Frame allocates (${MAX_ROTARY_BYTES / 1024 ** 3} GiB)`,
    };
  return null;
}

function plain(value: number): string {
  return value.toLocaleString('en-US');
}

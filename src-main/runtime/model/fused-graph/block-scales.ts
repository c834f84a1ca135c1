// A block weight's scales and block offsets as graph values. A weight with factored scales
// (GGUF's own narrow form: an int8 step per block, a half-float factor per group) stores those
// and widens them with a few nodes whose inputs are all initializers, so ONNX Runtime folds them
// into float32 constants at session build: the file holds 1–2 bytes a block instead of 4–8, and
// every product is exact in float32, so the values are the same as the float32 ones.

import type { GraphBuilder } from './graph-builder';
import { ONNX_TYPE_CODE } from './graph-builder';
import { bytesOfBits } from './float-matrix';
import type { BlockWeight, FactoredScales } from './weight-set';

/** Per builder: weight name → its widened scales [N, numGroups, groupSize] (shared by scales and offsets). */
const scalesByBuilder = new WeakMap<GraphBuilder, Map<string, string>>();

const toFloat = { to: ONNX_TYPE_CODE.float32 };

/** factor [N, groups, 1] × step [N, groups, groupSize] as float32 (the factor alone when there are no steps). */
function addSteppedValue(
  builder: GraphBuilder,
  name: string,
  numRows: number,
  numGroups: number,
  groupSize: number,
  steps: Int8Array | null,
  factors: Uint16Array,
): string {
  const factorDims = [numRows, numGroups, steps ? 1 : groupSize];
  const factor = builder.op(
    'Cast',
    [builder.addInitializer(`${name}_factors`, 'float16', factorDims, bytesOfBits(factors))],
    toFloat,
  );
  if (!steps) return factor;
  const stepBytes = new Uint8Array(steps.buffer, steps.byteOffset, steps.byteLength);
  const step = builder.op(
    'Cast',
    [builder.addInitializer(`${name}_steps`, 'int8', [numRows, numGroups, groupSize], stepBytes)],
    toFloat,
  );
  return builder.op('Mul', [step, factor]);
}

/** The weight's widened scales [N, numGroups, groupSize], added once per weight name. */
function addFactoredScales3(
  builder: GraphBuilder,
  name: string,
  weight: BlockWeight,
  factored: FactoredScales,
): string {
  const cache = scalesByBuilder.get(builder) ?? new Map<string, string>();
  scalesByBuilder.set(builder, cache);
  const known = cache.get(name);
  if (known) return known;
  const { groupSize } = factored;
  const numGroups = weight.scales.length / weight.numRows / groupSize;
  const value = addSteppedValue(
    builder,
    `${name}.scale`,
    weight.numRows,
    numGroups,
    groupSize,
    factored.scaleSteps,
    factored.scaleFactors,
  );
  cache.set(name, value);
  return value;
}

/** Whether `weight` carries factored scales that match its blocks. */
function factoredOf(weight: BlockWeight): FactoredScales | null {
  const factored = weight.factored;
  if (!factored || factored.scaleFactors.length * factored.groupSize !== weight.scales.length) return null;
  return factored;
}

/** The weight's scales as a float32 value [N, numBlocks]: stored as given, or factored and widened at load. */
export function addBlockScales(builder: GraphBuilder, name: string, weight: BlockWeight): string {
  const numBlocks = weight.scales.length / weight.numRows;
  const factored = factoredOf(weight);
  if (!factored)
    return builder.addInitializer(
      `${name}.scales`,
      'float32',
      [weight.numRows, numBlocks],
      bytesOfBits(weight.scales),
    );
  const shape = builder.addInt64Constant('scales_shape', [weight.numRows, numBlocks]);
  return builder.op('Reshape', [addFactoredScales3(builder, name, weight, factored), shape]);
}

/**
 * The weight's block offsets × blockSize, transposed to [numBlocks, N] (block-offsets.ts's
 * layout): stored as float32, or from the factored scales and mins as middle × scale − min,
 * widened at load (× blockSize, a power of two, is exact either way).
 */
export function addBlockOffsetsMatrix(
  builder: GraphBuilder,
  name: string,
  weight: BlockWeight & { offsets: Float32Array },
): string {
  const { numRows, blockSize } = weight;
  const numBlocks = weight.scales.length / numRows;
  const factored = factoredOf(weight);
  if (!factored?.mins) {
    const byColumn = new Float32Array(numBlocks * numRows);
    for (let row = 0; row < numRows; row++)
      for (let block = 0; block < numBlocks; block++)
        byColumn[block * numRows + row] = weight.offsets[row * numBlocks + block]! * blockSize;
    return builder.addInitializer(`${name}.offsets`, 'float32', [numBlocks, numRows], bytesOfBits(byColumn));
  }
  const { groupSize, mins } = factored;
  const numGroups = numBlocks / groupSize;
  const scales = addFactoredScales3(builder, name, weight, factored);
  const minValues = addSteppedValue(
    builder,
    `${name}.min`,
    numRows,
    numGroups,
    groupSize,
    mins.steps,
    mins.factors,
  );
  const middles = builder.op('Mul', [
    scales,
    builder.addFloatConstant('middle', [mins.middle * blockSize], []),
  ]);
  const scaledMins = builder.op('Mul', [minValues, builder.addFloatConstant('block_size', [blockSize], [])]);
  const offsets = builder.op('Sub', [middles, scaledMins]);
  const shape = builder.addInt64Constant('offsets_shape', [numRows, numBlocks]);
  return builder.op('Transpose', [builder.op('Reshape', [offsets, shape])], { perm: [1, 0] });
}

import type { GraphBuilder } from './graph-builder';
import { ONNX_TYPE_CODE } from './graph-builder';
import { bytesOfBits, outInBits, stackRows, storageAsGiven, transposed } from './float-matrix';
import type { FloatStorage, MatrixBits } from './float-matrix';
import type { BlockWeight, FloatWeight, MatrixWeight } from './weight-set';
import { addBlockOffsets, hasOffsets } from './block-offsets';
import { addBlockScales } from './block-scales';
import type { FactoredScales } from './weight-set';

/** Writer choices every projection needs. */
export interface ProjectionOptions {
  accuracyLevel: number;
  floatStorage: FloatStorage | 'as-given';
}

/** Float matrices' storage: the option, or fp16 only when every part came as fp16. */
function storageOf(weights: FloatWeight[], options: ProjectionOptions): FloatStorage {
  if (options.floatStorage !== 'as-given') return options.floatStorage;
  return weights.every((w) => storageAsGiven(w) === 'float16') ? 'float16' : 'float32';
}

/**
 * A float matrix as a float32 graph value: stored [rows, cols] in its storage, through one Cast
 * when fp16 (ONNX Runtime folds it at session creation, so it never runs per token).
 */
export function addFloatMatrix(builder: GraphBuilder, name: string, matrix: MatrixBits): string {
  const dims = [matrix.numRows, matrix.numCols];
  const bytes = bytesOfBits(matrix.bits);
  if (matrix.storage === 'float32') return builder.addInitializer(name, 'float32', dims, bytes);
  const stored = builder.addInitializer(`${name}.fp16`, 'float16', dims, bytes);
  return builder.op('Cast', [stored], { to: ONNX_TYPE_CODE.float32 }, name);
}

/** MatMul by a float weight given out-in: stored in-out ([in, out]) so the MatMul reads it as is. */
function addFloatProjection(
  builder: GraphBuilder,
  input: string,
  name: string,
  outIn: MatrixBits,
  outputName?: string,
): string {
  const weight = addFloatMatrix(builder, `${name}.weight`, transposed(outIn));
  return builder.op('MatMul', [input, weight], {}, outputName);
}

/** The inputs of a block weight: data [N, blocks, blob], scales [N, blocks], zero points. */
export function addBlockInitializers(builder: GraphBuilder, name: string, weight: BlockWeight): string[] {
  const numBlocks = Math.ceil(weight.numCols / weight.blockSize);
  const blobBytes = (weight.blockSize * weight.bits) / 8;
  const inputs = [
    builder.addInitializer(
      `${name}.q${weight.bits}`,
      'uint8',
      [weight.numRows, numBlocks, blobBytes],
      weight.data,
    ),
    addBlockScales(builder, name, weight),
  ];
  if (weight.zeroPoints)
    inputs.push(
      builder.addInitializer(`${name}.zero_points`, 'uint8', [weight.zeroPoints.length], weight.zeroPoints),
    );
  return inputs;
}

/** MatMulNBits over block initializers (`data` may be any value ONNX Runtime folds to a constant). */
export function addMatMulNBits(
  builder: GraphBuilder,
  input: string,
  initializers: string[],
  weight: Pick<BlockWeight, 'bits' | 'blockSize' | 'numRows' | 'numCols'>,
  options: ProjectionOptions,
  outputName?: string,
): string {
  const attributes = {
    K: weight.numCols,
    N: weight.numRows,
    bits: weight.bits,
    block_size: weight.blockSize,
    accuracy_level: options.accuracyLevel,
  };
  return builder.msOp('MatMulNBits', [input, ...initializers], attributes, outputName);
}

/** Each part's offsets end to end (zeros for a part without), or null when no part has any. */
function stackOffsets(parts: BlockWeight[]): Float32Array | null {
  if (!parts.some(hasOffsets)) return null;
  const stacked = new Float32Array(parts.reduce((sum, p) => sum + p.scales.length, 0));
  let offset = 0;
  for (const part of parts) {
    if (part.offsets) stacked.set(part.offsets, offset);
    offset += part.scales.length;
  }
  return stacked;
}

/** Block weights stacked along their rows (they share bits, block size and zero-point presence). */
function stackBlocks(parts: BlockWeight[]): BlockWeight {
  const concat = (arrays: Uint8Array[]) => concatOf(arrays, (length) => new Uint8Array(length));
  const scales = new Float32Array(parts.reduce((sum, p) => sum + p.scales.length, 0));
  let offset = 0;
  for (const part of parts) {
    scales.set(part.scales, offset);
    offset += part.scales.length;
  }
  const [first] = parts as [BlockWeight];
  return {
    ...first,
    numRows: parts.reduce((sum, p) => sum + p.numRows, 0),
    data: concat(parts.map((p) => p.data)),
    scales,
    zeroPoints: first.zeroPoints ? concat(parts.map((p) => p.zeroPoints!)) : null,
    offsets: stackOffsets(parts),
    factored: stackFactored(parts),
  };
}

/** Typed arrays of one kind end to end. */
function concatOf<T extends Uint8Array | Int8Array | Uint16Array>(
  arrays: T[],
  make: (length: number) => T,
): T {
  const out = make(arrays.reduce((sum, a) => sum + a.length, 0));
  let offset = 0;
  for (const array of arrays) {
    out.set(array, offset);
    offset += array.length;
  }
  return out;
}

/**
 * The parts' factored scales stacked along their rows, or null (float32 scales) unless every part
 * has them with one group size, steps alike, and mins alike (a part without mins cannot read
 * zeros from `middle × scale − min`).
 */
function stackFactored(parts: BlockWeight[]): FactoredScales | null {
  const all = parts.map((p) => p.factored ?? null);
  const [first] = all;
  if (!first || all.some((f) => !f)) return null;
  const factors = all as FactoredScales[];
  const alike = factors.every(
    (f) =>
      f.groupSize === first.groupSize &&
      !f.scaleSteps === !first.scaleSteps &&
      !f.mins === !first.mins &&
      f.mins?.middle === first.mins?.middle &&
      !f.mins?.steps === !first.mins?.steps,
  );
  if (!alike) return null;
  if (factors.length === 1) return first;
  const int8 = (length: number) => new Int8Array(length);
  const half = (length: number) => new Uint16Array(length);
  return {
    groupSize: first.groupSize,
    scaleSteps: first.scaleSteps
      ? concatOf(
          factors.map((f) => f.scaleSteps!),
          int8,
        )
      : null,
    scaleFactors: concatOf(
      factors.map((f) => f.scaleFactors),
      half,
    ),
    mins: first.mins
      ? {
          middle: first.mins.middle,
          steps: first.mins.steps
            ? concatOf(
                factors.map((f) => f.mins!.steps!),
                int8,
              )
            : null,
          factors: concatOf(
            factors.map((f) => f.mins!.factors),
            half,
          ),
        }
      : null,
  };
}

/** Whether weights can share one packed projection: all float, or all blocks of one layout. */
export function canPack(parts: MatrixWeight[]): boolean {
  const [first] = parts;
  if (!first) return false;
  if (first.kind === 'float') return parts.every((p) => p.kind === 'float');
  return parts.every(
    (p) =>
      p.kind === 'blocks' &&
      p.bits === first.bits &&
      p.blockSize === first.blockSize &&
      (p.zeroPoints === null) === (first.zeroPoints === null),
  );
}

/** One projection: `input` [.., in] × the weight → [.., out] (named `outputName` when given). */
export function addProjection(
  builder: GraphBuilder,
  input: string,
  name: string,
  weight: MatrixWeight,
  options: ProjectionOptions,
  outputName?: string,
): string {
  return addPackedProjection(builder, input, name, [weight], options, outputName);
}

/**
 * One projection by the weights stacked along their out features (packed QKV, gate/up): the
 * output's last axis holds each part's outputs in order. The caller checks `canPack`.
 */
export function addPackedProjection(
  builder: GraphBuilder,
  input: string,
  name: string,
  parts: MatrixWeight[],
  options: ProjectionOptions,
  outputName?: string,
): string {
  if (!canPack(parts)) throw new Error(`${name}: its parts cannot be packed into one projection`);
  if (parts[0]!.kind === 'blocks') {
    const packed = stackBlocks(parts as BlockWeight[]);
    const initializers = addBlockInitializers(builder, name, packed);
    if (!hasOffsets(packed)) return addMatMulNBits(builder, input, initializers, packed, options, outputName);
    const projected = addMatMulNBits(builder, input, initializers, packed, options);
    return addBlockOffsets(builder, input, projected, name, packed, outputName);
  }
  const floats = parts as FloatWeight[];
  const stacked = stackRows(floats.map((w) => outInBits(w, storageOf(floats, options))));
  return addFloatProjection(builder, input, name, stacked, outputName);
}

/** The float storage a weight set's float matrix gets (for callers outside a packed group). */
export function floatStorageOf(weight: FloatWeight, options: ProjectionOptions): FloatStorage {
  return storageOf([weight], options);
}

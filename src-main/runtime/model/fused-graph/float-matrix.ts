import { bfloat16ArrayToFloat32, float32ToHalfInto, halfArrayToFloat32 } from '../float16';
import type { FloatWeight } from './weight-set';

/** How a float matrix is stored in a written graph. */
export type FloatStorage = 'float32' | 'float16';

/** A matrix's elements as bit patterns in its storage: row-major [numRows, numCols]. */
export interface MatrixBits {
  storage: FloatStorage;
  bits: Uint32Array | Uint16Array;
  numRows: number;
  numCols: number;
}

const TILE = 32;

/** Blocked transpose of a row-major [numRows, numCols] matrix into `target` ([numCols, numRows]). */
export function transposeInto<T extends Uint16Array | Uint32Array>(
  source: T,
  target: T,
  numRows: number,
  numCols: number,
): void {
  for (let rowStart = 0; rowStart < numRows; rowStart += TILE) {
    const rowEnd = Math.min(rowStart + TILE, numRows);
    for (let colStart = 0; colStart < numCols; colStart += TILE) {
      const colEnd = Math.min(colStart + TILE, numCols);
      for (let row = rowStart; row < rowEnd; row++) {
        for (let col = colStart; col < colEnd; col++)
          target[col * numRows + row] = source[row * numCols + col]!;
      }
    }
  }
}

/** The bits of `matrix` transposed ([numCols, numRows]). */
export function transposed(matrix: MatrixBits): MatrixBits {
  const bits =
    matrix.bits instanceof Uint16Array
      ? new Uint16Array(matrix.bits.length)
      : new Uint32Array(matrix.bits.length);
  transposeInto(matrix.bits, bits, matrix.numRows, matrix.numCols);
  return { storage: matrix.storage, bits, numRows: matrix.numCols, numCols: matrix.numRows };
}

/** A float weight's values as float32 (exact for every source dtype). */
export function floatValues(weight: FloatWeight): Float32Array {
  if (weight.dtype === 'float32') return weight.data;
  if (weight.dtype === 'float16') return halfArrayToFloat32(weight.data);
  return bfloat16ArrayToFloat32(weight.data);
}

/** The storage a weight keeps when the writer stores floats "as given": fp16 stays fp16, the rest fp32. */
export function storageAsGiven(weight: FloatWeight): FloatStorage {
  return weight.dtype === 'float16' ? 'float16' : 'float32';
}

/** A matrix in out-in order ([out, in]) in `storage` (fp32 → fp16 rounds to nearest even). */
export function outInBits(weight: FloatWeight, storage: FloatStorage): MatrixBits {
  let bits: Uint32Array | Uint16Array;
  if (storage === 'float16' && weight.dtype === 'float16') bits = weight.data;
  else {
    const values = floatValues(weight);
    if (storage === 'float32') bits = new Uint32Array(values.buffer, values.byteOffset, values.length);
    else {
      bits = new Uint16Array(values.length);
      float32ToHalfInto(values, bits);
    }
  }
  const [d0, d1] = weight.shape as [number, number];
  const matrix: MatrixBits = { storage, bits, numRows: d0, numCols: d1 };
  return weight.order === 'out-in' ? matrix : transposed(matrix);
}

/** Out-in matrices of one storage and column count stacked along their rows (packed projections). */
export function stackRows(parts: MatrixBits[]): MatrixBits {
  const [first] = parts;
  if (!first || parts.some((p) => p.storage !== first.storage || p.numCols !== first.numCols))
    throw new Error('stacked matrices must share their storage and column count');
  const numRows = parts.reduce((sum, p) => sum + p.numRows, 0);
  const bits =
    first.storage === 'float16'
      ? new Uint16Array(numRows * first.numCols)
      : new Uint32Array(numRows * first.numCols);
  let offset = 0;
  for (const part of parts) {
    bits.set(part.bits, offset);
    offset += part.bits.length;
  }
  return { storage: first.storage, bits, numRows, numCols: first.numCols };
}

/** The little-endian bytes of a matrix's bits, as a view. */
export function bytesOfBits(bits: Uint32Array | Uint16Array | Float32Array): Uint8Array {
  return new Uint8Array(bits.buffer, bits.byteOffset, bits.byteLength);
}

import { ropeParamsOfFrequencies } from '../rope';
import type { RopeParams } from '../rope';
import { expectFor } from './refusal';
import type { Angles } from './rotary';

/** How far a table's cos/sin may sit from cos/sin of position × the frequencies read from it. */
const TABLE_TOLERANCE = 2e-3;

/** Rows of a cos/sin table compared with the frequencies read from it (a 128k-position table holds 8M values). */
const MAX_ROWS_CHECKED = 4096;

/**
 * The writer's RoPE parameters for the graph's angles (rope.ts's ropeParamsOfFrequencies). Tables
 * are read back into frequencies first and must be cos/sin of position × those frequencies.
 */
export function ropeParamsOf(angles: Angles, headDim: number, part: string): RopeParams {
  const inverse = angles.kind === 'frequencies' ? angles.inverse : tableFrequencies(angles, headDim, part);
  expectFor(
    part,
    inverse.every((f) => f > 0 && Number.isFinite(f)),
    'its rotary frequencies are not all positive',
  );
  return ropeParamsOfFrequencies(inverse, headDim);
}

/**
 * Frequencies read from cos/sin tables: each column's angle at position 1, refined at positions
 * 2, 4, 8, … (unwrapping whole turns) so the last position's angle is exact to float rounding;
 * then every row must agree with cos/sin of position × frequency.
 */
function tableFrequencies(
  angles: Extract<Angles, { kind: 'tables' }>,
  headDim: number,
  part: string,
): Float32Array {
  const half = headDim / 2;
  const { cos, sin, numPositions } = angles;
  expectFor(part, numPositions >= 2, 'its cos/sin tables hold fewer than two positions');
  const at = (table: Float32Array, position: number, i: number) => table[position * half + i]!;
  const inverse = new Float32Array(half);
  for (let i = 0; i < half; i++) {
    let estimate = Math.atan2(at(sin, 1, i), at(cos, 1, i));
    for (let position = 2; position < numPositions; position *= 2) {
      const angle = Math.atan2(at(sin, position, i), at(cos, position, i));
      const turns = Math.round((position * estimate - angle) / (2 * Math.PI));
      estimate = (angle + 2 * Math.PI * turns) / position;
    }
    inverse[i] = estimate;
  }
  // Every row of a short table; about MAX_ROWS_CHECKED spread over a long one, and its last row.
  const stride = Math.max(1, Math.floor(numPositions / MAX_ROWS_CHECKED));
  const rows = Array.from({ length: Math.ceil(numPositions / stride) }, (_, k) => k * stride);
  for (const position of [...rows, numPositions - 1])
    for (let i = 0; i < half; i++) {
      const angle = Math.fround(position * inverse[i]!);
      const error = Math.max(
        Math.abs(Math.cos(angle) - at(cos, position, i)),
        Math.abs(Math.sin(angle) - at(sin, position, i)),
      );
      expectFor(
        part,
        error <= TABLE_TOLERANCE,
        `its cos/sin table at position ${position} is not cos/sin of position × a frequency`,
      );
    }
  return inverse;
}

import { ropeInverseFrequencies } from '../fused-graph';
import type { RopeScaling } from '../fused-graph';
import { expectFor } from './refusal';
import type { Angles } from './rotary';

/** How far a table's cos/sin may sit from cos/sin of position × the frequencies read from it. */
const TABLE_TOLERANCE = 2e-3;

/** RoPE as the fused writer's dims express it: a base, and per-frequency divisors when it is scaled. */
export interface RopeParams {
  ropeTheta: number;
  ropeScaling: RopeScaling | null;
}

/**
 * The writer's RoPE parameters for the graph's angles: the base whose plain frequencies equal the
 * graph's (to float32 rounding), else that base with per-frequency divisors (any scaling the graph
 * computed into its frequencies, llama3's and linear included). Tables are read back into
 * frequencies first and must be cos/sin of position × those frequencies.
 */
export function ropeParamsOf(angles: Angles, headDim: number, part: string): RopeParams {
  const inverse = angles.kind === 'frequencies' ? angles.inverse : tableFrequencies(angles, headDim, part);
  expectFor(
    part,
    inverse.every((f) => f > 0 && Number.isFinite(f)),
    'its rotary frequencies are not all positive',
  );
  const estimate = inverse.length > 1 ? inverse[1]! ** (-headDim / 2) : 10_000;
  for (const ropeTheta of [Math.round(estimate), estimate]) {
    const plain = ropeInverseFrequencies(headDim, ropeTheta);
    if (plain.every((f, i) => f === inverse[i])) return { ropeTheta, ropeScaling: null };
  }
  const ropeTheta = Math.round(estimate);
  const plain = ropeInverseFrequencies(headDim, ropeTheta);
  const factors = Float32Array.from(plain, (f, i) => f / inverse[i]!);
  return { ropeTheta, ropeScaling: { type: 'frequency-factors', factors } };
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
  for (let position = 0; position < numPositions; position++)
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

import { ropeInverseFrequencies } from '../fused-graph';
import type { RopeScaling } from '../fused-graph';
import { expectFor } from './refusal';
import type { Angles } from './rotary';

/** How far a table's cos/sin may sit from cos/sin of position × the frequencies read from it. */
const TABLE_TOLERANCE = 2e-3;

/** Rows of a cos/sin table compared with the frequencies read from it (a 128k-position table holds 8M values). */
const MAX_ROWS_CHECKED = 4096;

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
  // inverse[i] = theta^(−2i / headDim): the lowest frequency pins theta best, the second one is
  // the one scalings leave alone; float32 rounding leaves either a little off a round base.
  const baseFrom = (i: number) => inverse[i]! ** (-headDim / (2 * i));
  const last = inverse.length - 1;
  const estimates = last >= 1 ? [baseFrom(1), baseFrom(last)] : [10_000];
  const candidates = estimates.flatMap((e) => [Number(e.toPrecision(4)), Math.round(e), e]);
  for (const ropeTheta of candidates) {
    const plain = ropeInverseFrequencies(headDim, ropeTheta);
    if (plain.every((f, i) => f === inverse[i])) return { ropeTheta, ropeScaling: null };
  }
  const ropeTheta = candidates[0]!;
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

import type { LifeState, Transition } from '../../telemetry/timeline/schema';
import { LIFE_STATES } from '../../telemetry/timeline/schema';

/**
 * A timeline's transitions as float64 triples: the state's index in LIFE_STATES, `at`, and
 * `endAt` or NaN when absent (a transition's `endAt` is never NaN: the schema takes only
 * numbers). Formatting ~25 doubles as JSON text was the largest part of encoding a row; the
 * triples are copies, and every value reads back bit for bit. The index makes LIFE_STATES'
 * order part of the stored format: a state may be appended, never moved (the codes are pinned
 * literally in test/unit/history/codec/stored-codes.test.ts).
 */
export const TRANSITION_WIDTH = 3;

const STATE_CODES = Object.fromEntries(LIFE_STATES.map((state, code) => [state, code])) as Record<
  LifeState,
  number
>;

/** Writes the transitions' triples into `target` from index `from` (TRANSITION_WIDTH values each). */
export function writeTransitions(
  transitions: readonly Transition[],
  target: Float64Array,
  from: number,
): void {
  let offset = from;
  for (const transition of transitions) {
    const code = STATE_CODES[transition.state];
    if (code === undefined) throw new Error(`a transition into unknown state "${transition.state}"`);
    target[offset] = code;
    target[offset + 1] = transition.at;
    target[offset + 2] = transition.endAt ?? NaN;
    offset += TRANSITION_WIDTH;
  }
}

/** The transitions back from their triples; a value that is not a state's index is an error. */
export function readTransitions(values: Float64Array): Transition[] {
  if (values.length % TRANSITION_WIDTH !== 0)
    throw new Error(`${values.length} stored transition values are not whole triples`);
  const out = new Array<Transition>(values.length / TRANSITION_WIDTH);
  for (let i = 0, offset = 0; offset < values.length; i++, offset += TRANSITION_WIDTH) {
    const code = values[offset]!;
    const state = LIFE_STATES[code];
    if (state === undefined) throw new Error(`stored transition ${i} has state code ${code}`);
    const at = values[offset + 1]!;
    const endAt = values[offset + 2]!;
    out[i] = Number.isNaN(endAt) ? { state, at } : { state, at, endAt };
  }
  return out;
}

/** The transitions' triples in a fresh blob of their own (rows kept for later, the migration). */
export function packTransitions(transitions: readonly Transition[]): Buffer {
  const values = new Float64Array(transitions.length * TRANSITION_WIDTH);
  writeTransitions(transitions, values, 0);
  return Buffer.from(values.buffer);
}

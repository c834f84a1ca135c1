import type { Transition } from '../../../../src-main/telemetry/timeline/schema';
import { LIFE_STATES } from '../../../../src-main/telemetry/timeline/schema';

/**
 * Every life state once, in order, alternately with and without `endAt`, at fractional ms that
 * have no short decimal form (0.1 + 0.2), an epoch-sized value and the smallest subnormal.
 */
export function everyStateTransitions(): Transition[] {
  return LIFE_STATES.map((state, i): Transition => {
    const at = 1_000 + i * (0.1 + 0.2);
    return i % 2 === 0 ? { state, at } : { state, at, endAt: at + 1 / 3 };
  }).concat([
    { state: 'decode', at: 1_700_000_000_123.456, endAt: 1_700_000_000_123.457 },
    { state: 'decode', at: 5e-324 },
  ]);
}

/** How requests arrive: open loop (offsets on a clock) or closed loop (groups, each after the last). */
export type Arrivals = { kind: 'open'; offsetsMs: number[] } | { kind: 'closed'; groupSize: number };

/** The arrival profiles of the load lab (a sweep runs `poisson` once per rate). */
export type ArrivalProfile = 'sync' | 'constant' | 'poisson' | 'burst';

/**
 * Arrival schedule of `count` requests: `sync` sends each when the previous finished,
 * `burst` sends groups of `burstSize` at once (the next group when the last finished),
 * `constant` spaces them 1/rate apart, `poisson` draws exponential gaps with mean 1/rate.
 */
export function arrivalsOf(
  profile: ArrivalProfile,
  count: number,
  options: { ratePerS: number; burstSize: number; uniform: () => number },
): Arrivals {
  if (profile === 'sync') return { kind: 'closed', groupSize: 1 };
  if (profile === 'burst') return { kind: 'closed', groupSize: Math.max(1, options.burstSize) };
  const gapMs = 1000 / options.ratePerS;
  const offsetsMs: number[] = [];
  let atMs = 0;
  for (let i = 0; i < count; i++) {
    offsetsMs.push(atMs);
    atMs += profile === 'constant' ? gapMs : -Math.log(1 - options.uniform()) * gapMs;
  }
  return { kind: 'open', offsetsMs };
}

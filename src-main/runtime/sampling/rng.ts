/** A seeded pseudo-random source in [0, 1): the same seed gives the same tokens. */
export type Random = () => number;

/** mulberry32: tiny, fast, good enough for sampling; `seed` is a 32-bit integer. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

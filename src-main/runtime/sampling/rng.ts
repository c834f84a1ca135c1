/** A seeded pseudo-random source in [0, 1): the same seed gives the same tokens. */
export type Random = () => number;

/**
 * mulberry32 with its whole state in one 32-bit integer, so a sequence's sampler can be
 * handed between threads (and resumed after a preemption) as a number.
 */
export class SeededRandom {
  constructor(public state: number) {
    this.state = state >>> 0;
  }

  /** The next value in [0, 1), advancing the state. */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
}

/** A seeded source as a function; `seed` is a 32-bit integer. */
export function seededRandom(seed: number): Random {
  const random = new SeededRandom(seed);
  return () => random.next();
}

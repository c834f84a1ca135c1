import { ManualClock } from '../clock';
import { TimelineRecorder } from '../timeline/recorder';
import type { FinishReason, LifeState, Timeline } from '../timeline/schema';

/**
 * The synthetic chat workload benchmarks and tests use: Poisson arrivals at `ratePerS`, prompt
 * lengths from short chat to documents, 40% of requests with a cached prefix, 2% on a cold
 * slot, 1–64 output tokens, 1% rejected, 1% errors, 2% cancelled. Deterministic for a seed.
 */
export interface SyntheticOptions {
  seed?: number;
  ratePerS?: number;
  runId?: string | null;
  models?: readonly string[];
}

/** Small deterministic PRNG (mulberry32): uniform in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const PROMPT_CHOICES = [40, 90, 300, 700, 1_500, 3_000, 9_000];

/** `count` checked timelines of the synthetic workload, in arrival order. */
export function syntheticTimelines(count: number, options: SyntheticOptions = {}): Timeline[] {
  const random = prng(options.seed ?? 1);
  const clock = new ManualClock(0, 1_700_000_000_000);
  const models = options.models ?? ['first-frame-tiny'];
  const meanGapMs = 1000 / (options.ratePerS ?? 20);
  const out: Timeline[] = [];
  let arrivedAt = 1_000;
  for (let i = 0; i < count; i++) {
    arrivedAt += -Math.log(1 - random()) * meanGapMs;
    out.push(oneRequest(i, arrivedAt, random, clock, options.runId ?? null, models[i % models.length]!));
  }
  return out;
}

function oneRequest(
  index: number,
  arrivedAt: number,
  random: () => number,
  clock: ManualClock,
  runId: string | null,
  modelId: string,
): Timeline {
  const numPromptTokens = PROMPT_CHOICES[Math.floor(random() * PROMPT_CHOICES.length)]!;
  const numCachedTokens = random() < 0.4 ? Math.floor(numPromptTokens * 0.8) : 0;
  const isColdSlot = random() < 0.02;
  const recorder = new TimelineRecorder(
    clock,
    {
      requestId: `syn-${index}`,
      runId,
      modelId,
      modelRevision: 'rev-synthetic',
      slotId: 'slot-0',
      isColdSlot,
      numPromptTokens,
      numCachedTokens,
    },
    arrivedAt,
  );
  const fate = random();
  let at = arrivedAt + 0.2 + random();
  if (fate < 0.01) return recorder.finish('rejected', at);
  const steps: Array<[LifeState, number]> = [
    ['route', 0.1 + random() * 0.2],
    ['slotLoad', isColdSlot ? 250 + random() * 100 : 0],
    ['queue', -Math.log(1 - random()) * 30],
    ['activation', 0.2],
    ['contextLookup', 0.2 + numCachedTokens * 0.002],
    ['prefill', 5 + (numPromptTokens - numCachedTokens) * 0.04 * (0.8 + random() * 0.4)],
    ['emit', 0.5 + random()],
  ];
  for (const [state, afterMs] of steps) {
    recorder.enter(state, at);
    at += afterMs;
  }
  return decodeAndFinish(recorder, at, random, fate);
}

function decodeAndFinish(
  recorder: TimelineRecorder,
  firstTokenAt: number,
  random: () => number,
  fate: number,
): Timeline {
  const reason: FinishReason =
    fate < 0.02 ? 'error' : fate < 0.04 ? 'cancelled' : fate < 0.09 ? 'length' : 'stop';
  let at = firstTokenAt;
  recorder.tokensFlushed(1, at);
  const numTokens = 1 + Math.floor(random() * 64);
  for (let k = 1; k < numTokens; k++) {
    at += 15 + random() * 10;
    recorder.tokensFlushed(1, at);
  }
  return recorder.finish(reason, at + 0.1, reason === 'error' ? 'synthetic failure' : null);
}

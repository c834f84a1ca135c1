import type { DecodeOutcome } from '../slot-worker/protocol';

/**
 * How long one burst of decode steps may take (ms). Every reply wakes the main thread, and on a
 * small machine that takes a core from the step the worker runs ahead (on 2 cores, 0.2–0.3 ms of
 * a ~2 ms step, and now and then a 5–7 ms stall while ONNX Runtime's threads wait for the one it
 * took). A job of k steps wakes it once per k tokens. Text still arrives 40 times a second, far
 * faster than anyone reads; a new request or a cancel cuts a burst after its current step
 * (BurstCutNotice), and a stop string costs at most the rest of the burst.
 */
export const BURST_TARGET_MS = 25;
/** The most decode steps one job runs back to back. */
export const MAX_BURST_STEPS = 8;
/** Weight of the newest step in the smoothed step time. */
const PACE_WEIGHT = 0.3;

/** Whether decode bursts are on: `FF_DECODE_BURST=off` runs one step per job (the A/B switch). */
export function isBurstOn(): boolean {
  return process.env.FF_DECODE_BURST !== 'off';
}

/**
 * The most decode steps a slot's next job may run, from its smoothed forward time (ms): as many
 * as fit in BURST_TARGET_MS, 1 before any step was timed or with bursts off.
 */
export function burstStepsOf(decodeStepMs: number | null): number {
  if (decodeStepMs === null || !isBurstOn()) return 1;
  const steps = Math.floor(BURST_TARGET_MS / Math.max(decodeStepMs, 0.1));
  return Math.max(1, Math.min(MAX_BURST_STEPS, steps));
}

/** The smoothed forward time (ms) after a reply's decode steps (`previous` null: none timed yet). */
export function nextPaceOf(previous: number | null, outcomes: readonly DecodeOutcome[]): number | null {
  let pace = previous;
  for (const { startedAt, logitsAt } of outcomes) {
    const ms = logitsAt - startedAt;
    pace = pace === null ? ms : pace + PACE_WEIGHT * (ms - pace);
  }
  return pace;
}

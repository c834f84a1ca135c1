/**
 * Cold-prefetch measurement: drop the file from the page cache, then read it into a host
 * buffer with or without locking and the WILLNEED hint. Used by `bench prefetch` and reusable
 * by the first-frame benchmark so "pinned helps" is a measured ratio, not an assumption.
 */
import { nearestRankSorted } from '../../telemetry/report/nearest-rank';
import { slotPinningJson, type SlotPinningJson } from './slot-pinning';
import type { HostMemory } from './types';

/** One arm of the comparison: lock requested or not, WILLNEED hint or not. */
export interface PrefetchArm {
  name: string;
  isLockRequested: boolean;
  isWillNeed: boolean;
}

/** The four arms, baseline (`plain`) first. */
export const PREFETCH_ARMS: readonly PrefetchArm[] = [
  { name: 'plain', isLockRequested: false, isWillNeed: false },
  { name: 'willneed', isLockRequested: false, isWillNeed: true },
  { name: 'locked', isLockRequested: true, isWillNeed: false },
  { name: 'locked+willneed', isLockRequested: true, isWillNeed: true },
];

/** A read counts as cold when at most this % of the file was resident just before it. */
export const COLD_THRESHOLD_PCT = 5;

/** One cold prefetch: wall ms of readFileInto (DONTNEED excluded) and the addon's phase ms. */
export interface PrefetchSample {
  arm: string;
  totalMs: number;
  lockMs: number;
  adviseMs: number;
  readMs: number;
  /** File residency after DONTNEED, before the read; null when unknown (fallback). */
  residentPctBefore: number | null;
  /** residentPctBefore ≤ COLD_THRESHOLD_PCT; null when residency is unknown. */
  isCold: boolean | null;
  slot: SlotPinningJson;
}

/** Drops the file from the page cache, reads it per `arm`, records, releases the buffer. */
export async function measureColdPrefetch(
  memory: HostMemory,
  path: string,
  arm: PrefetchArm,
  options: { lockBeyondLimit?: boolean } = {},
): Promise<PrefetchSample> {
  memory.adviseDontNeed(path);
  const before = memory.residency(path);
  const startMs = performance.now();
  const lock = arm.isLockRequested;
  const buffer = await memory.readFileInto(path, {
    lock,
    willNeed: arm.isWillNeed,
    lockBeyondLimit: lock && options.lockBeyondLimit === true,
  });
  const totalMs = performance.now() - startMs;
  try {
    const timings = buffer.timings ?? { lockMs: 0, adviseMs: 0, readMs: totalMs };
    const residentPctBefore = before ? before.residentPct : null;
    return {
      arm: arm.name,
      totalMs,
      ...timings,
      residentPctBefore,
      isCold: residentPctBefore === null ? null : residentPctBefore <= COLD_THRESHOLD_PCT,
      slot: slotPinningJson(buffer),
    };
  } finally {
    buffer.release();
  }
}

/** Nearest-rank summary of durations in ms (p in 0–100). */
export interface MsSummary {
  numSamples: number;
  medianMs: number;
  p95Ms: number;
  minMs: number;
  maxMs: number;
}

/** Median (p50) and p95 by nearest rank, plus min and max. */
export function summarizeMs(valuesMs: readonly number[]): MsSummary {
  const sorted = [...valuesMs].sort((a, b) => a - b);
  return {
    numSamples: sorted.length,
    medianMs: nearestRankSorted(sorted, 0.5) ?? Number.NaN,
    p95Ms: nearestRankSorted(sorted, 0.95) ?? Number.NaN,
    minMs: sorted[0] ?? Number.NaN,
    maxMs: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

/** Arm order for repetition `rep`: rotated so each arm runs in each position equally often. */
export function armsForRep(rep: number, arms: readonly PrefetchArm[] = PREFETCH_ARMS): PrefetchArm[] {
  const shift = rep % arms.length;
  return [...arms.slice(shift), ...arms.slice(0, shift)];
}

import { nearestRankOf } from '../../src-main/telemetry/report/nearest-rank';

/** One measured figure of the store bench, with its workload, boundary, statistic and target. */
export interface BenchResult {
  name: string;
  workload: string;
  boundary: string;
  statistic: string;
  value: number;
  unit: string;
  target: string;
  isMet: boolean | null;
  detail: Record<string, unknown>;
}

/** The synthetic workload every store figure runs on. */
export const WORKLOAD = (n: number) =>
  `${n.toLocaleString('en')} synthetic chat timelines (seed 1: Poisson arrivals, prompts 40–9,000 tokens, 1–64 output tokens ≈ 31 gaps each, 1% rejected, 1% errors)`;

/** Nearest-rank median. */
export const median = (values: readonly number[]): number => nearestRankOf(values, 0.5)!;

/** One decimal. */
export function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

import type { Boundary } from '../../telemetry/report/seed-phases';

/** One configuration's figures under one workload, as the decision sentence reads them. */
export interface DecisionRow {
  label: string;
  boundary: Boundary;
  p95TtftMs: number | null;
  goodShare: number | null;
  outputTokensPerS: number | null;
  failedOrRejectedShare: number | null;
  /** The quality bench's figures for the row's model revision, when measured. */
  quality: { variant: string; bitsPerByte: number; agreement: number } | null;
}

const pct = (share: number) => `${(share * 100).toFixed(1)}%`;
const ms = (value: number) => `${Math.round(value).toLocaleString('en-US')} ms`;

/** `cuts … by 43.1%` / `raises … by 12.0%`, relative to the baseline; null when either is missing. */
function change(
  base: number | null,
  next: number | null,
): { word: 'cuts' | 'raises' | 'keeps'; by: string } | null {
  if (base === null || next === null || base <= 0) return null;
  const delta = (next - base) / base;
  if (Math.abs(delta) < 0.0005) return { word: 'keeps', by: '' };
  return { word: delta < 0 ? 'cuts' : 'raises', by: pct(Math.abs(delta)) };
}

/**
 * Seed 002's decision sentence for `b` against the baseline `a` under one workload: "Under W,
 * B cuts p95 client TTFT by X% (a → b) at Y% lower goodput …", with throughput, the failed or
 * rejected share beside it, and quality when the configurations serve different models or
 * variants. It states the trade; it never names a winner.
 */
export function decisionSentence(
  workload: string,
  a: DecisionRow,
  b: DecisionRow,
  withQuality: boolean,
): string {
  const ttft = change(a.p95TtftMs, b.p95TtftMs);
  const head =
    ttft === null
      ? `Under ${workload}, ${b.label} has no p95 TTFT to compare with ${a.label}`
      : `Under ${workload}, ${b.label} ${ttft.word} p95 ${b.boundary} TTFT${ttft.by ? ` by ${ttft.by}` : ''} (${ms(a.p95TtftMs!)} → ${ms(b.p95TtftMs!)})`;
  const parts = [head + goodputClause(a.goodShare, b.goodShare)];
  const throughput = change(a.outputTokensPerS, b.outputTokensPerS);
  if (throughput && throughput.by)
    parts.push(
      `${throughput.by} ${throughput.word === 'cuts' ? 'less' : 'more'} output throughput (${a.outputTokensPerS!.toFixed(1)} → ${b.outputTokensPerS!.toFixed(1)} tokens/s)`,
    );
  if (a.failedOrRejectedShare !== null && b.failedOrRejectedShare !== null)
    parts.push(`failed or rejected ${pct(a.failedOrRejectedShare)} → ${pct(b.failedOrRejectedShare)}`);
  if (withQuality) parts.push(qualityClause(a, b));
  return `${parts.join('; ')}.`;
}

function goodputClause(a: number | null, b: number | null): string {
  if (a === null || b === null) return ' (no goodput without an SLO)';
  if (a === 0) return b === 0 ? ' with no goodput in either' : ` with goodput 0% → ${pct(b)}`;
  const delta = (b - a) / a;
  if (Math.abs(delta) < 0.0005) return ` at the same goodput (${pct(a)})`;
  return ` at ${pct(Math.abs(delta))} ${delta < 0 ? 'lower' : 'higher'} goodput (${pct(a)} → ${pct(b)} of requests)`;
}

function qualityClause(a: DecisionRow, b: DecisionRow): string {
  if (!a.quality && !b.quality)
    return 'quality not measured for either (npm run bench -- quality before choosing on latency alone)';
  const text = (row: DecisionRow) =>
    row.quality
      ? `${row.quality.bitsPerByte.toFixed(4)} bits/byte (${row.quality.variant}, greedy agreement ${pct(row.quality.agreement)})`
      : 'not measured';
  return `quality ${a.label} ${text(a)} vs ${b.label} ${text(b)}`;
}

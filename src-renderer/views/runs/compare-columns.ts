import type { RunComparison } from '../../../src-main/service/contract/report-schemas';
import { formatCount, formatMs, formatShare, formatSignedMs } from '../../components/format';

/** One run's row of a workload block. */
export type CompareRow = RunComparison['workloads'][number]['rows'][number];

/** Which way is better for a figure: a shorter wait, or more answers per second. */
type Better = 'lower' | 'higher';

/**
 * One figure of the comparison: its heading in Expert (the terms) and in Simple (the words the
 * Dashboard's tables use: "first word", "between two words", "95 in 100 within"), its text, and
 * how two runs' values differ (null: no difference shown, e.g. a count of requests).
 */
export interface CompareColumn {
  id: string;
  expert: string;
  simple: string;
  text(row: CompareRow): string;
  /** The number compared between runs, and which way is better; absent for figures not compared. */
  diff?: { value(row: CompareRow): number | null; better: Better; kind: 'ms' | 'share' | 'rate' };
}

/** How a figure of one kind is written: a wait in ms, a share as a percentage. */
const FORMAT_OF = { ms: formatMs, share: formatShare } as const;

/** A figure that is one number of the row, written as its kind is, where a smaller value is better. */
function lowerIsBetter(
  names: Pick<CompareColumn, 'id' | 'expert' | 'simple'>,
  kind: keyof typeof FORMAT_OF,
  value: (row: CompareRow) => number | null,
): CompareColumn {
  return { ...names, text: (r) => FORMAT_OF[kind](value(r)), diff: { value, better: 'lower', kind } };
}

/** Every figure of a workload block, in the table's order (one declaration for both modes). */
export const COMPARE_COLUMNS: readonly CompareColumn[] = [
  { id: 'requests', expert: 'requests', simple: 'answers', text: (r) => formatCount(r.numRequests) },
  {
    id: 'throughput',
    expert: 'throughput',
    simple: 'tokens per second',
    text: (r) =>
      r.outputTokensPerS === null
        ? '–'
        : `${r.outputTokensPerS.toFixed(1)} tok/s · ${r.requestsPerS?.toFixed(2) ?? '–'} req/s`,
    diff: { value: (r) => r.outputTokensPerS, better: 'higher', kind: 'rate' },
  },
  lowerIsBetter(
    { id: 'ttft-p50', expert: 'TTFT p50', simple: 'first word, typical' },
    'ms',
    (r) => r.p50TtftMs,
  ),
  lowerIsBetter(
    { id: 'ttft-p95', expert: 'TTFT p95', simple: 'first word, 95 in 100 within' },
    'ms',
    (r) => r.p95TtftMs,
  ),
  lowerIsBetter(
    { id: 'itl-p95', expert: 'ITL p95', simple: 'between two words, 95 in 100 within' },
    'ms',
    (r) => r.p95ItlMs,
  ),
  {
    id: 'goodput',
    expert: 'goodput',
    simple: 'within your limits',
    text: (r) =>
      r.goodShare === null ? '–' : `${formatShare(r.goodShare)} · ${r.goodPerS?.toFixed(2) ?? '–'}/s`,
    diff: { value: (r) => r.goodShare, better: 'higher', kind: 'share' },
  },
  lowerIsBetter(
    { id: 'missed-ttft', expert: 'missed TTFT SLO', simple: 'first word later than your limit' },
    'share',
    (r) => r.missedTtftSloShare,
  ),
  lowerIsBetter(
    { id: 'failed', expert: 'failed or rejected', simple: 'failed or turned away' },
    'share',
    (r) => r.failedOrRejectedShare,
  ),
];

/** Within this share of each other two values count as the same (noise, not a change). */
const SAME_WITHIN = 0.02;

/** Which way `b` moved from `a` on one figure, or null where it cannot be compared. */
function verdictOf(column: CompareColumn, a: CompareRow, b: CompareRow): 'better' | 'worse' | 'same' | null {
  if (!column.diff) return null;
  const { value, better } = column.diff;
  const x = value(a);
  const y = value(b);
  if (x === null || y === null) return null;
  const scale = Math.max(Math.abs(x), Math.abs(y));
  if (scale === 0 || Math.abs(y - x) <= scale * SAME_WITHIN) return 'same';
  return y < x === (better === 'lower') ? 'better' : 'worse';
}

/**
 * Simple's sentence for `b` against `a`, in the columns' plain words: where it is better, where
 * worse, and that the rest is about the same ("B against A: better on …; worse on …").
 */
export function plainComparison(a: CompareRow, b: CompareRow): string {
  const on = (verdict: 'better' | 'worse') =>
    COMPARE_COLUMNS.filter((c) => verdictOf(c, a, b) === verdict).map((c) => c.simple);
  const better = on('better');
  const worse = on('worse');
  const parts = [
    better.length > 0 ? `better on ${better.join(', ')}` : null,
    worse.length > 0 ? `worse on ${worse.join(', ')}` : null,
  ].filter((p) => p !== null);
  const rest =
    parts.length === 0 ? 'about the same on every figure' : `${parts.join('; ')}; the rest about the same`;
  return `${b.runLabel} against ${a.runLabel}: ${rest}.`;
}

/**
 * How `b` differs from `a` on one figure: the difference (B − A), the ratio where it means
 * something, and "better" / "worse" / "about the same" for someone choosing between them.
 */
export function differenceText(column: CompareColumn, a: CompareRow, b: CompareRow): string {
  const verdict = verdictOf(column, a, b);
  if (!column.diff) return '';
  if (verdict === null) return '–';
  const { value, kind } = column.diff;
  const x = value(a)!;
  const y = value(b)!;
  const delta = y - x;
  if (delta === 0) return 'the same';
  const shown =
    kind === 'ms'
      ? formatSignedMs(delta)
      : kind === 'share'
        ? `${delta < 0 ? '−' : '+'}${(Math.abs(delta) * 100).toFixed(1)} points`
        : `${delta < 0 ? '−' : '+'}${Math.abs(delta).toFixed(1)} tok/s`;
  const ratio = kind !== 'share' && x > 0 ? ` (×${(y / x).toFixed(2)})` : '';
  return `${shown}${ratio}, ${verdict === 'same' ? 'about the same' : verdict}`;
}

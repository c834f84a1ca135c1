import type { RunComparison } from '../../../src-main/service/contract';
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
  {
    id: 'ttft-p50',
    expert: 'TTFT p50',
    simple: 'first word, typical',
    text: (r) => formatMs(r.p50TtftMs),
    diff: { value: (r) => r.p50TtftMs, better: 'lower', kind: 'ms' },
  },
  {
    id: 'ttft-p95',
    expert: 'TTFT p95',
    simple: 'first word, 95 in 100 within',
    text: (r) => formatMs(r.p95TtftMs),
    diff: { value: (r) => r.p95TtftMs, better: 'lower', kind: 'ms' },
  },
  {
    id: 'itl-p95',
    expert: 'ITL p95',
    simple: 'between two words, 95 in 100 within',
    text: (r) => formatMs(r.p95ItlMs),
    diff: { value: (r) => r.p95ItlMs, better: 'lower', kind: 'ms' },
  },
  {
    id: 'goodput',
    expert: 'goodput',
    simple: 'within your limits',
    text: (r) =>
      r.goodShare === null ? '–' : `${formatShare(r.goodShare)} · ${r.goodPerS?.toFixed(2) ?? '–'}/s`,
    diff: { value: (r) => r.goodShare, better: 'higher', kind: 'share' },
  },
  {
    id: 'missed-ttft',
    expert: 'missed TTFT SLO',
    simple: 'first word later than your limit',
    text: (r) => formatShare(r.missedTtftSloShare),
    diff: { value: (r) => r.missedTtftSloShare, better: 'lower', kind: 'share' },
  },
  {
    id: 'failed',
    expert: 'failed or rejected',
    simple: 'failed or turned away',
    text: (r) => formatShare(r.failedOrRejectedShare),
    diff: { value: (r) => r.failedOrRejectedShare, better: 'lower', kind: 'share' },
  },
];

/** Within this share of each other two values count as the same (noise, not a change). */
const SAME_WITHIN = 0.02;

/**
 * How `b` differs from `a` on one figure: the difference (B − A), the ratio where it means
 * something, and "better" / "worse" / "about the same" for someone choosing between them.
 */
export function differenceText(column: CompareColumn, a: CompareRow, b: CompareRow): string {
  if (!column.diff) return '';
  const { value, better, kind } = column.diff;
  const x = value(a);
  const y = value(b);
  if (x === null || y === null) return '–';
  const delta = y - x;
  if (delta === 0) return 'the same';
  const scale = Math.max(Math.abs(x), Math.abs(y));
  const isSame = scale === 0 || Math.abs(delta) <= scale * SAME_WITHIN;
  const verdict = isSame ? 'about the same' : delta < 0 === (better === 'lower') ? 'better' : 'worse';
  const shown =
    kind === 'ms'
      ? formatSignedMs(delta)
      : kind === 'share'
        ? `${delta < 0 ? '−' : '+'}${(Math.abs(delta) * 100).toFixed(1)} points`
        : `${delta < 0 ? '−' : '+'}${Math.abs(delta).toFixed(1)} tok/s`;
  const ratio = kind !== 'share' && x > 0 ? ` (×${(y / x).toFixed(2)})` : '';
  return `${shown}${ratio}, ${verdict}`;
}

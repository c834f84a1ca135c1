import type { RunComparison } from '../../../src-main/service/contract/report-schemas';
import { formatCount, formatMs, formatShare, formatSignedMs } from '../../components/format';

/** One run's row of a workload block. */
export type CompareRow = RunComparison['workloads'][number]['rows'][number];

/** Which way is better for a figure: a shorter wait, or more answers per second. */
type Better = 'lower' | 'higher';

/**
 * One figure of the comparison: its heading in the Dashboard's plain words ("first word,
 * typical"), the term Expert adds after them ("TTFT p50"), the phrase Simple's sentence names it
 * by (no commas, so a list of them reads as one), its text, and how two runs' values differ
 * (absent: no difference shown, e.g. a count of requests).
 */
export interface CompareColumn {
  id: string;
  simple: string;
  term: string;
  phrase: string;
  text(row: CompareRow): string;
  /** The number compared between runs, and which way is better; absent for figures not compared. */
  diff?: { value(row: CompareRow): number | null; better: Better; kind: 'ms' | 'share' | 'rate' };
}

/** A heading in plain words, with the term of art after it in Expert (one vocabulary, Expert adds detail). */
export function headingOf(words: { simple: string; term: string }, isExpert: boolean): string {
  return isExpert ? `${words.simple} (${words.term})` : words.simple;
}

/** The "measured at" column: where each run's clock stopped, in the Dashboard's words. */
export const BOUNDARY_HEADING = { simple: 'measured at', term: 'boundary' } as const;

/** Where a run's figures were measured: at the app (the server's clock) or in the window (the client's). */
export function boundaryText(boundary: CompareRow['boundary'], isExpert: boolean): string {
  const words = boundary === 'client' ? 'in the window' : 'at the app';
  return isExpert ? `${words} (${boundary})` : words;
}

/** How a figure of one kind is written: a wait in ms, a share as a percentage. */
const FORMAT_OF = { ms: formatMs, share: formatShare } as const;

/** A figure that is one number of the row, written as its kind is, where a smaller value is better. */
function lowerIsBetter(
  names: Pick<CompareColumn, 'id' | 'simple' | 'term' | 'phrase'>,
  kind: keyof typeof FORMAT_OF,
  value: (row: CompareRow) => number | null,
): CompareColumn {
  return { ...names, text: (r) => FORMAT_OF[kind](value(r)), diff: { value, better: 'lower', kind } };
}

/** Every figure of a workload block, in the table's order (one declaration for both modes). */
export const COMPARE_COLUMNS: readonly CompareColumn[] = [
  {
    id: 'requests',
    simple: 'answers',
    term: 'requests',
    phrase: 'answers',
    text: (r) => formatCount(r.numRequests),
  },
  {
    id: 'throughput',
    simple: 'tokens per second',
    term: 'throughput',
    phrase: 'tokens per second',
    text: (r) =>
      r.outputTokensPerS === null
        ? '–'
        : `${r.outputTokensPerS.toFixed(1)} tok/s · ${r.requestsPerS?.toFixed(2) ?? '–'} req/s`,
    diff: { value: (r) => r.outputTokensPerS, better: 'higher', kind: 'rate' },
  },
  lowerIsBetter(
    {
      id: 'ttft-p50',
      simple: 'first word, typical',
      term: 'TTFT p50',
      phrase: 'how soon a typical answer starts',
    },
    'ms',
    (r) => r.p50TtftMs,
  ),
  lowerIsBetter(
    {
      id: 'ttft-p95',
      simple: 'first word, 95 in 100 within',
      term: 'TTFT p95',
      phrase: 'how soon 95 in 100 answers start',
    },
    'ms',
    (r) => r.p95TtftMs,
  ),
  lowerIsBetter(
    {
      id: 'itl-p95',
      simple: 'between two words, 95 in 100 within',
      term: 'ITL p95',
      phrase: 'how soon 95 in 100 words follow the one before',
    },
    'ms',
    (r) => r.p95ItlMs,
  ),
  {
    id: 'goodput',
    simple: 'within your limits',
    term: 'goodput',
    phrase: 'how many answers stay within your limits',
    text: (r) =>
      r.goodShare === null ? '–' : `${formatShare(r.goodShare)} · ${r.goodPerS?.toFixed(2) ?? '–'}/s`,
    diff: { value: (r) => r.goodShare, better: 'higher', kind: 'share' },
  },
  lowerIsBetter(
    {
      id: 'missed-ttft',
      simple: 'first word later than your limit',
      term: 'missed TTFT SLO',
      phrase: 'how many answers start later than your limit',
    },
    'share',
    (r) => r.missedTtftSloShare,
  ),
  lowerIsBetter(
    {
      id: 'failed',
      simple: 'failed or turned away',
      term: 'failed or rejected',
      phrase: 'how many answers fail or are turned away',
    },
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

/** Phrases as one list in a sentence: "a", "a and b", "a, b and c". */
function listOf(phrases: readonly string[]): string {
  return phrases.length < 2 ? (phrases[0] ?? '') : `${phrases.slice(0, -1).join(', ')} and ${phrases.at(-1)}`;
}

/**
 * Simple's sentences for `b` against `a`, each figure named once by its phrase: where it is
 * better, where worse, and that the rest is about the same ("B against A: better on …. Worse on
 * …. The rest is about the same.").
 */
export function plainComparison(a: CompareRow, b: CompareRow): string {
  const on = (verdict: 'better' | 'worse') =>
    COMPARE_COLUMNS.filter((c) => verdictOf(c, a, b) === verdict).map((c) => c.phrase);
  const better = on('better');
  const worse = on('worse');
  const head = `${b.runLabel} against ${a.runLabel}:`;
  if (better.length === 0 && worse.length === 0) return `${head} about the same on every figure.`;
  const sentences = [
    better.length > 0 ? `better on ${listOf(better)}.` : null,
    worse.length > 0 ? `${better.length > 0 ? 'Worse' : 'worse'} on ${listOf(worse)}.` : null,
    better.length + worse.length < COMPARE_COLUMNS.filter((c) => c.diff).length
      ? 'The rest is about the same.'
      : null,
  ].filter((p) => p !== null);
  return `${head} ${sentences.join(' ')}`;
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

import { describe, expect, it } from 'vitest';
import {
  boundaryText,
  COMPARE_COLUMNS,
  differenceText,
  headingOf,
  plainComparison,
} from '../../../src-renderer/views/runs/compare-columns';
import type { CompareRow } from '../../../src-renderer/views/runs/compare-columns';

const row = (figures: Partial<CompareRow>): CompareRow => ({
  configLabel: 'A',
  runLabel: 'A',
  runId: 'r',
  name: 'run',
  numRequests: 10,
  boundary: 'server',
  requestsPerS: 1,
  outputTokensPerS: 100,
  p50TtftMs: 50,
  p95TtftMs: 200,
  p95ItlMs: 20,
  goodShare: 0.9,
  goodPerS: 0.9,
  missedTtftSloShare: 0.1,
  failedOrRejectedShare: 0,
  serverP95TtftMs: 200,
  quality: null,
  ...figures,
});
const column = (id: string) => COMPARE_COLUMNS.find((c) => c.id === id)!;

describe("a comparison's difference column (B − A)", () => {
  it('says better or worse by which way each figure should go, with the ratio', () => {
    const a = row({});
    const b = row({ p95TtftMs: 150, outputTokensPerS: 80, goodShare: 0.95 });
    expect(differenceText(column('ttft-p95'), a, b)).toBe('−50.0 ms (×0.75), better');
    expect(differenceText(column('throughput'), a, b)).toBe('−20.0 tok/s (×0.80), worse');
    expect(differenceText(column('goodput'), a, b)).toBe('+5.0 points, better');
  });

  it('calls a change within noise the same, and shows nothing it cannot compare', () => {
    const a = row({});
    expect(differenceText(column('itl-p95'), a, row({ p95ItlMs: 20.2 }))).toMatch(/, about the same$/);
    expect(differenceText(column('ttft-p50'), a, row({ p50TtftMs: null }))).toBe('–');
    expect(differenceText(column('requests'), a, row({ numRequests: 3 }))).toBe('');
    expect(differenceText(column('failed'), a, row({}))).toBe('the same');
  });

  it('names every figure in plain words for Simple, with no latency jargon', () => {
    for (const c of COMPARE_COLUMNS) {
      expect(c.simple).not.toMatch(/TTFT|ITL|SLO|goodput|p\d\d/);
      expect(c.phrase).not.toMatch(/TTFT|ITL|SLO|goodput|p\d\d|,/);
    }
    expect(boundaryText('client', false)).toBe('in the window');
  });

  it("leads Expert's headings with Simple's words and adds the term after them", () => {
    expect(headingOf(column('ttft-p50'), true)).toBe('first word, typical (TTFT p50)');
    expect(headingOf(column('goodput'), true)).toBe('within your limits (goodput)');
    expect(headingOf(column('goodput'), false)).toBe('within your limits');
    expect(boundaryText('server', true)).toBe('at the app (server)');
    for (const c of COMPARE_COLUMNS) expect(headingOf(c, true).startsWith(`${c.simple} (`)).toBe(true);
  });

  it("says Simple's trade as sentences naming each figure once: better on, worse on, the rest", () => {
    const a = row({});
    const b = row({ runLabel: 'B', p95TtftMs: 150, p50TtftMs: 40, p95ItlMs: 30 });
    expect(plainComparison(a, b)).toBe(
      'B against A: better on how soon a typical answer starts and how soon 95 in 100 answers start. ' +
        'Worse on how soon 95 in 100 words follow the one before. The rest is about the same.',
    );
    expect(plainComparison(a, row({ runLabel: 'B', p95ItlMs: 30 }))).toBe(
      'B against A: worse on how soon 95 in 100 words follow the one before. The rest is about the same.',
    );
    expect(plainComparison(a, row({ runLabel: 'B' }))).toBe('B against A: about the same on every figure.');
  });
});

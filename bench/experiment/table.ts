import type { TtftPhase } from '../../src-main/telemetry/report/remedies';
import { TTFT_PHASES } from '../../src-main/telemetry/report/phases';
import type { ArmResult } from './arm';

const ms = (v: number | null | undefined): string => (v === null || v === undefined ? 'n/a' : v.toFixed(1));
const pct = (v: number | null | undefined): string =>
  v === null || v === undefined ? 'n/a' : `${(v * 100).toFixed(1)}%`;
const cell = (text: string, width: number) => text.padStart(width);

/** The parts any arm spent time in (a part that is zero everywhere is a column of zeros). */
function visibleParts(arms: readonly ArmResult[]): TtftPhase[] {
  return TTFT_PHASES.filter((p) => arms.some((a) => (a.summary.partMeansMs[p] ?? 0) >= 0.05));
}

/**
 * Seed 001's two tables: TTFT parts as means that sum to the mean TTFT (ms and share), then
 * the totals as nearest-rank percentiles with the queue share, preemptions, wasted prefill and
 * the arm's rates. Then each arm's queue and prefill against the first arm's.
 */
export function tableLines(arms: readonly ArmResult[]): string[] {
  const labelWidth = Math.max(10, ...arms.map((a) => a.arm.label.length)) + 2;
  const parts = visibleParts(arms);
  const lines = [
    'TTFT parts (server; means over requests with a first token — they sum to the mean TTFT)',
    `${'arm'.padEnd(labelWidth)}${cell('mean TTFT', 11)}${parts.map((p) => cell(p, 15)).join('')}`,
  ];
  for (const a of arms) {
    const s = a.summary;
    const values = parts.map((p) => cell(`${ms(s.partMeansMs[p])} ${pct(s.partShares[p])}`, 15));
    lines.push(`${a.arm.label.padEnd(labelWidth)}${cell(ms(s.meanTtftMs), 11)}${values.join('')}`);
  }
  lines.push(
    '',
    'Totals (nearest-rank percentiles, ms; E2E over completed responses; client TTFT from the load client)',
    `${'arm'.padEnd(labelWidth)}${['TTFT p50', 'p95', 'p99', 'client p95', 'E2E p50', 'p95', 'ITL p50', 'p95', 'decode mean', 'queue share', 'preempt', 'wasted prefill', 'req/s', 'out tok/s', 'failed'].map((h) => cell(h, 11)).join('')}`,
  );
  for (const a of arms) {
    const s = a.summary;
    const row = [
      ms(s.ttft.p50Ms),
      ms(s.ttft.p95Ms),
      ms(s.ttft.p99Ms),
      ms(s.clientTtft?.p95Ms),
      ms(s.e2e.p50Ms),
      ms(s.e2e.p95Ms),
      ms(s.itl.p50Ms),
      ms(s.itl.p95Ms),
      ms(s.decodeMeanMs),
      pct(s.queueShare),
      String(s.numPreemptions),
      ms(s.wastedPrefillMs),
      s.requestsPerS?.toFixed(2) ?? 'n/a',
      s.outputTokensPerS?.toFixed(1) ?? 'n/a',
      pct(s.failedOrRejectedShare),
    ];
    lines.push(`${a.arm.label.padEnd(labelWidth)}${row.map((v) => cell(v, 11)).join('')}`);
  }
  return [...lines, '', ...ratioLines(arms)];
}

/** Each arm's queue and prefill means as a multiple of the first arm's (the experiment's verdict). */
export function armRatios(arms: readonly ArmResult[]) {
  const first = arms[0]?.summary;
  const ratio = (a: number | null, b: number | null | undefined) => (a === null || !b ? null : a / b);
  return arms.slice(1).map((a) => ({
    arm: a.arm.label,
    against: arms[0]!.arm.label,
    queueMeanRatio: ratio(a.summary.partMeansMs.queue, first?.partMeansMs.queue),
    prefillMeanRatio: ratio(a.summary.partMeansMs.prefill, first?.partMeansMs.prefill),
    ttftMeanRatio: ratio(a.summary.meanTtftMs, first?.meanTtftMs),
    decodeMeanRatio: ratio(a.summary.decodeMeanMs, first?.decodeMeanMs),
  }));
}

function ratioLines(arms: readonly ArmResult[]): string[] {
  const x = (v: number | null) => (v === null ? 'n/a' : `${v.toFixed(2)}×`);
  return armRatios(arms).map(
    (r) =>
      `${r.arm} vs ${r.against}: queue mean ${x(r.queueMeanRatio)}, prefill mean ${x(r.prefillMeanRatio)}, TTFT mean ${x(r.ttftMeanRatio)}, decode mean ${x(r.decodeMeanRatio)}`,
  );
}

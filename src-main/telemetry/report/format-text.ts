import type { Distribution } from './distribution';
import type { ClassCell } from './conditioning';
import { TTFT_PHASES } from './phases';
import type { LatencyReport } from './types';

const ms = (value: number | null): string => (value === null ? '—' : `${value.toFixed(1)} ms`);
const pct = (share: number | null): string => (share === null ? '—' : `${(share * 100).toFixed(1)}%`);

/** The report as plain text lines for a terminal: workload, boundaries, totals, parts, verdicts. */
export function formatReport(report: LatencyReport, label: string, workload: string): string[] {
  const lines = [`Scenario: ${label} (${report.numRequests} requests; ${workload})`];
  if (report.isEmpty) return [...lines, `No requests: ${report.note ?? 'nothing to report'}.`];
  const { tokens } = report;
  lines.push(
    `Shape: prompt p50/p95 ${tokens.promptP50}/${tokens.promptP95} tokens | output p50/p95 ${tokens.outputP50}/${tokens.outputP95} tokens`,
    ...totalLine('TTFT', report.ttft, report.boundaries.ttft),
    ...totalLine('Client TTFT', report.clientTtft, report.boundaries.clientTtft),
    ...totalLine('ITL', report.itl, report.boundaries.itl),
    ...totalLine('E2E', report.e2e, report.boundaries.e2e),
    `TTFT parts (means over ${report.parts.numRequests} requests with a first token; they sum to the mean TTFT ${ms(report.parts.meanTtftMs)}):`,
  );
  for (const phase of TTFT_PHASES) {
    const meanMs = report.parts.meansMs[phase];
    if (meanMs)
      lines.push(
        `  ${phase.padEnd(14)} ${ms(meanMs).padStart(12)}  ${pct(report.parts.shares[phase]).padStart(6)}`,
      );
  }
  return [...lines, ...verdictLines(report), ...classLines(report)];
}

function totalLine(name: string, d: Distribution, boundary: string): string[] {
  if (d.count === 0) return [`${name}: no data (${boundary})`];
  return [
    `${name} p50 ${ms(d.p50Ms)} | p90 ${ms(d.p90Ms)} | p95 ${ms(d.p95Ms)} | p99 ${ms(d.p99Ms)} | mean ${ms(d.meanMs)} | n=${d.count}  [${boundary}]`,
  ];
}

function verdictLines(report: LatencyReport): string[] {
  const lines: string[] = [];
  const ttft = report.dominantTtftPhase;
  const e2e = report.dominantE2ePhase;
  if (ttft)
    lines.push(
      `Dominant TTFT phase: ${ttft.phase} (${ms(ttft.meanMs)} mean, ${pct(ttft.share)})`,
      `  next test: ${ttft.nextTest}`,
    );
  if (e2e)
    lines.push(`Dominant E2E phase: ${e2e.phase} (${ms(e2e.meanMs)} mean)`, `  next test: ${e2e.nextTest}`);
  if (report.exceedance) lines.push(`Exceedance: ${report.exceedance.sentence}`);
  const little = report.littlesLaw;
  if (little)
    lines.push(
      `Little's law over ${(little.windowMs / 1000).toFixed(2)} s${little.isFullSpan ? ' (full span)' : ''}: L = ${little.meanInSystem.toFixed(2)}, λW = ${little.predictedInSystem.toFixed(2)} ` +
        `(gap ${pct(little.relativeGap)}, tolerance ${pct(little.tolerance)}) → ${little.isConsistent ? 'consistent' : 'INCONSISTENT: boundaries, dropped requests or a non-steady window'}`,
    );
  const rate = report.throughput;
  if (rate)
    lines.push(
      `Throughput: ${rate.requestsPerS.toFixed(2)} requests/s, ${rate.outputTokensPerS.toFixed(1)} output tokens/s; failed or rejected ${pct(rate.failedOrRejectedShare)}`,
    );
  const good = report.goodput;
  if (good)
    lines.push(
      `Goodput (TTFT ≤ ${good.slo.ttftMs} ms and own p95 ITL ≤ ${good.slo.itlMs} ms): ${pct(good.goodShare)} of requests, ${good.goodPerS.toFixed(2)}/s; missed TTFT ${pct(good.missedTtftShare)}`,
    );
  return lines;
}

function classLines(report: LatencyReport): string[] {
  const c = report.conditioning;
  const lines = [`By class (cells under ${c.minCount} requests are too small to read):`];
  const dims = [
    ['prompt band', c.promptBand],
    ['cache', c.cache],
    ['model', c.model],
    ['finish', c.finishReason],
  ] as const;
  for (const [name, cells] of dims)
    for (const cell of cells) lines.push(`  ${name.padEnd(11)} ${cellText(cell)}`);
  return lines;
}

function cellText(cell: ClassCell): string {
  const head = `${cell.label.padEnd(18)} n=${String(cell.numRequests).padEnd(6)}`;
  if (cell.isTooSmall) return `${head} too small`;
  return `${head} TTFT p50 ${ms(cell.ttftP50Ms)} p95 ${ms(cell.ttftP95Ms)} | E2E p95 ${ms(cell.e2eP95Ms)} | dominant ${cell.dominantPhase ?? '—'}`;
}

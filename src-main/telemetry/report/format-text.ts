import type { BoundaryPhases } from './boundary-phases';
import type { Distribution } from './distribution';
import type { ClassCell } from './conditioning';
import { PHASE_NAMES, SEED_PHASE_NAMES, TTFT_PHASES } from './phases';
import type { TtftPhase } from './remedies';
import { PERCENTILE_METHOD, SEED_PHASES } from './seed-phases';
import type { LatencyReport } from './types';

const ms = (value: number | null): string => (value === null ? '—' : `${value.toFixed(1)} ms`);
const pct = (share: number | null): string => (share === null ? '—' : `${(share * 100).toFixed(1)}%`);
/** Widest name in a list, so a column of names lines up (the screens' names, never the identifiers). */
const widthOf = (names: readonly string[]): number => Math.max(...names.map((n) => n.length));
const PART_WIDTH = widthOf(TTFT_PHASES.map((p) => PHASE_NAMES[p]));
const SEED_WIDTH = widthOf(Object.values(SEED_PHASE_NAMES));

/**
 * The report as plain text lines for a terminal: workload, boundaries, totals, parts, verdicts.
 * Parts and phases are named as the screens name them (PHASE_NAMES, SEED_PHASE_NAMES).
 */
export function formatReport(report: LatencyReport, label: string, workload: string): string[] {
  const lines = [`Scenario: ${label} (${report.numRequests} requests; ${workload})`];
  if (report.isEmpty) return [...lines, `No requests: ${report.note ?? 'nothing to report'}.`];
  const { tokens } = report;
  lines.push(
    `Shape: prompt p50/p95 ${tokens.promptP50}/${tokens.promptP95} tokens | output p50/p95 ${tokens.outputP50}/${tokens.outputP95} tokens`,
    `Percentiles: ${PERCENTILE_METHOD}`,
    `Boundary: ${report.boundary} (goodput and the exceedance set are computed there)`,
    ...clientLines(report),
    ...totalLine('Server TTFT', report.ttft, report.boundaries.ttft),
    ...totalLine('Server ITL', report.itl, report.boundaries.itl),
    ...totalLine('Server E2E', report.e2e, report.boundaries.e2e),
    ...phaseLines(report.serverPhases),
    `Server TTFT parts (means over ${report.parts.numRequests} requests with a first token; they sum to the mean server TTFT ${ms(report.parts.meanTtftMs)}):`,
  );
  for (const phase of TTFT_PHASES) {
    const meanMs = report.parts.meansMs[phase];
    if (meanMs)
      lines.push(
        `  ${PHASE_NAMES[phase].padEnd(PART_WIDTH)} ${ms(meanMs).padStart(12)}  ${pct(report.parts.shares[phase]).padStart(6)}`,
      );
  }
  return [...lines, ...verdictLines(report), ...classLines(report)];
}

/** Client-boundary totals, the seven phases there and the broken measurements. */
function clientLines(report: LatencyReport): string[] {
  const c = report.client;
  if (!c) return ['Client boundary: no request carries client stamps'];
  const b = report.boundaries;
  const lines = [
    ...totalLine('Client TTFT', c.ttft, b.clientTtft),
    ...totalLine('Client ITL', c.itl, b.clientItl),
    ...totalLine('Client E2E', c.e2e, b.clientE2e),
    ...totalLine('Transport', c.transport, b.transport),
  ];
  if (c.broken.count > 0)
    lines.push(
      `Broken measurements: ${c.broken.count} request(s) (${c.broken.requestIds.join(', ')}${c.broken.count > c.broken.requestIds.length ? ', …' : ''}): ${c.broken.rule}; left out of the phase means`,
    );
  if (c.phases) lines.push(...phaseLines(c.phases));
  else
    lines.push(
      `Client phases: none of the ${c.numWithClientTtft} client-stamped requests has its network legs apart (stamps on one aligned clock) and its client E2E`,
    );
  return lines;
}

/** Seed 003's seven phases at one boundary, each with the server parts inside it, and the verdicts. */
function phaseLines(p: BoundaryPhases): string[] {
  if (p.numRequests === 0) return [];
  const lines = [
    `Seed 003 phases at the ${p.boundary} boundary (means over ${p.numRequests} requests; the first six plus unattributed ${ms(p.unattributedMeanMs)} sum to the mean TTFT ${ms(p.meanTtftMs)}):`,
  ];
  for (const phase of SEED_PHASES) {
    const mean = p.meansMs[phase];
    const nested = Object.entries(p.nestedMeansMs[phase])
      .filter(([, v]) => v > 0)
      .map(([part, v]) => `${PHASE_NAMES[part as TtftPhase]} ${ms(v)}`);
    const value =
      mean === null
        ? 'not seen at this boundary'
        : `${ms(mean).padStart(12)}  ${pct(p.shares[phase]).padStart(6)}`;
    lines.push(
      `  ${SEED_PHASE_NAMES[phase].padEnd(SEED_WIDTH)} ${value}${nested.length > 0 ? `  (${nested.join(', ')})` : ''}`,
    );
  }
  const t = p.dominantTtft;
  const e = p.dominantE2e;
  if (t) {
    lines.push(
      `  dominant TTFT phase: ${SEED_PHASE_NAMES[t.phase]} (${ms(t.meanMs)} mean, ${pct(t.share)}); first test: ${t.nextTest}`,
    );
    if (t.part) lines.push(`    inside it, ${PHASE_NAMES[t.part]} dominates: ${t.partNextTest}`);
  }
  if (e)
    lines.push(
      `  dominant E2E phase: ${SEED_PHASE_NAMES[e.phase]} (${ms(e.meanMs)} mean); first test: ${e.nextTest}`,
    );
  return lines;
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
      `Dominant server TTFT part: ${PHASE_NAMES[ttft.phase]} (${ms(ttft.meanMs)} mean, ${pct(ttft.share)})`,
      `  next test: ${ttft.nextTest}`,
    );
  if (e2e)
    lines.push(
      `Dominant server E2E part: ${PHASE_NAMES[e2e.phase]} (${ms(e2e.meanMs)} mean)`,
      `  next test: ${e2e.nextTest}`,
    );
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
      `Goodput at the ${good.boundary} boundary (TTFT ≤ ${good.slo.ttftMs} ms and own ${good.boundary === 'client' ? 'mean' : 'p95'} ITL ≤ ${good.slo.itlMs} ms): ${pct(good.goodShare)} of requests, ${good.goodPerS.toFixed(2)}/s; missed TTFT ${pct(good.missedTtftShare)}${good.numUnmeasured > 0 ? `; ${good.numUnmeasured} normal finish(es) without figures at this boundary` : ''}`,
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
  return `${head} TTFT p50 ${ms(cell.ttftP50Ms)} p95 ${ms(cell.ttftP95Ms)} | E2E p95 ${ms(cell.e2eP95Ms)} | dominant ${cell.dominantPhase === null ? '—' : PHASE_NAMES[cell.dominantPhase]}`;
}

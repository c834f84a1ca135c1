import type { Timeline } from '../timeline/schema';
import type { ReportColumns } from './columns';
import { pooledReportColumns } from './column-pool';
import { DEFAULT_PROMPT_BAND_EDGES } from './classes';
import { classIndexes, conditionOn, DEFAULT_MIN_CELL_COUNT } from './conditioning';
import { distributionOfNonNegative, quantilesOfNonNegative } from './bucket-quantiles';
import { exceedanceOf } from './exceedance';
import { throughputOf } from './goodput';
import { DEFAULT_LITTLE_TOLERANCE, fullSpanOf, littlesLaw } from './littles-law';
import { breakDown, dominantOf, E2E_PHASES, TTFT_PHASES } from './phases';
import { boundaryPhases, serverRowOf } from './boundary-phases';
import { clientBoundaryOf, isCompletedCode } from './client-boundary';
import type { Boundary } from './seed-phases';
import type { LatencyReport, ReportOptions, TokenShape } from './types';
import { BOUNDARIES } from './types';

/** The report over a set of timelines; see LatencyReport. O(n) plus one selection per metric. */
export function buildReport(timelines: readonly Timeline[], options: ReportOptions = {}): LatencyReport {
  return buildReportFromColumns(pooledReportColumns(timelines), options);
}

/** The report over columns already extracted (a stored run loads straight into columns). */
export function buildReportFromColumns(columns: ReportColumns, options: ReportOptions = {}): LatencyReport {
  const bandEdges = options.promptBandEdges ?? DEFAULT_PROMPT_BAND_EDGES;
  const minCount = options.minCellCount ?? DEFAULT_MIN_CELL_COUNT;
  const n = columns.numRequests;
  const v = columns.values;
  const ttft = distributionOfNonNegative(servedHere(columns));
  const { parts, e2e: e2ePhases } = breakDown(columns);
  const classes = classIndexes(columns, bandEdges);
  const client = clientBoundaryOf(columns);
  const boundary: Boundary =
    options.boundary === 'client' || options.boundary === 'server'
      ? options.boundary
      : client
        ? 'client'
        : 'server';
  const exceedanceThreshold = boundary === 'client' ? (client?.ttft.p95Ms ?? null) : ttft.p95Ms;
  const report: LatencyReport = {
    numRequests: n,
    isEmpty: n === 0,
    note: n === 0 ? 'no requests' : null,
    boundary,
    boundaries: BOUNDARIES,
    client,
    serverPhases: boundaryPhases(columns, 'server', serverRowOf(columns)),
    tokens: tokenShape(columns),
    ttft,
    clientTtft: distributionOfNonNegative(v.clientTtftMs),
    itl: distributionOfNonNegative(columns.itlGapsMs),
    e2e: distributionOfNonNegative(completedOnly(columns)),
    parts,
    e2ePhases,
    dominantTtftPhase: dominantOf(parts.meansMs, TTFT_PHASES, parts.meanTtftMs),
    dominantE2ePhase: dominantOf(e2ePhases.meansMs, E2E_PHASES, null),
    exceedance:
      exceedanceThreshold === null
        ? null
        : exceedanceOf(columns, exceedanceThreshold, classes.promptBand, classes.model, boundary),
    littlesLaw: null,
    throughput: null,
    goodput: null,
    conditioning: conditionOn(columns, minCount, classes),
  };
  return withRates(report, columns, options);
}

/** Adds Little's law, throughput and goodput when the window has a positive length. */
function withRates(report: LatencyReport, columns: ReportColumns, options: ReportOptions): LatencyReport {
  const fullSpan = fullSpanOf(columns);
  const window = options.window ?? fullSpan;
  if (!window || window.endAt <= window.startAt) return report;
  const isFullSpan =
    fullSpan !== null && window.startAt <= fullSpan.startAt && window.endAt >= fullSpan.endAt;
  const tolerance = options.littleTolerance ?? DEFAULT_LITTLE_TOLERANCE;
  const { throughput, goodput } = throughputOf(columns, window, options.slo ?? null, report.boundary);
  return { ...report, littlesLaw: littlesLaw(columns, window, tolerance, isFullSpan), throughput, goodput };
}

/**
 * Server TTFT of the requests served here: a remote engine's timeline measures TTFT at the
 * client (its server's own TTFT, when reported, is in its remote facts), so those rows read
 * as NaN, which percentiles skip. No copy when nothing was remote.
 */
function servedHere(columns: ReportColumns): Float64Array {
  const v = columns.values;
  if (!v.isRemote.includes(1)) return v.ttftMs;
  return v.ttftMs.map((ms, r) => (v.isRemote[r] === 1 ? NaN : ms));
}

/** Server E2E of completed responses served here (stop, length); NaN for the rest, which percentiles skip. */
function completedOnly(columns: ReportColumns): Float64Array {
  const v = columns.values;
  const out = new Float64Array(columns.numRequests);
  for (let r = 0; r < columns.numRequests; r++)
    out[r] = isCompletedCode(v.finishCode[r]!) && v.isRemote[r] !== 1 ? v.e2eMs[r]! : NaN;
  return out;
}

/** Prompt and output length percentiles (nearest rank, read in place). */
function tokenShape(columns: ReportColumns): TokenShape {
  const [promptP50, promptP95] = quantilesOfNonNegative(columns.values.numPromptTokens, [0.5, 0.95]);
  const [outputP50, outputP95] = quantilesOfNonNegative(columns.values.numOutputTokens, [0.5, 0.95]);
  return {
    promptP50: promptP50 ?? null,
    promptP95: promptP95 ?? null,
    outputP50: outputP50 ?? null,
    outputP95: outputP95 ?? null,
  };
}

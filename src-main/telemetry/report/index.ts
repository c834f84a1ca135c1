export { buildReport, buildReportFromColumns } from './build-report';
export type { LatencyReport, ReportOptions, TokenShape } from './types';
export { BOUNDARIES } from './types';
export { TimelineWindow, DEFAULT_WINDOW_CAPACITY } from './window';
export {
  SCALAR_FIELDS,
  SCALAR_INDEX,
  allocateColumns,
  toReportColumns,
  writeScalars,
  ownItlP95Ms,
  finishCode,
  finishReasonOf,
} from './columns';
export type { ReportColumns, ScalarField } from './columns';
export type { Distribution } from './distribution';
export { rankIndex, quantilesInPlace, nearestRankOf, nearestRankSorted } from './nearest-rank';
export { NEXT_TEST } from './remedies';
export type { TtftPhase, E2ePhase } from './remedies';
export { TTFT_PHASES, E2E_PHASES, PHASE_NAMES } from './phases';
export type { PartBreakdown, E2eBreakdown, DominantPhase } from './phases';
export type { Exceedance, ExceedanceGroup } from './exceedance';
export { DEFAULT_LITTLE_TOLERANCE } from './littles-law';
export type { LittlesLaw, ObservationWindow } from './littles-law';
export type { Slo, Throughput, Goodput } from './goodput';
export { DEFAULT_MIN_CELL_COUNT } from './conditioning';
export type { ClassCell, Conditioning } from './conditioning';
export { DEFAULT_PROMPT_BAND_EDGES } from './classes';
export { histogram, DEFAULT_TTFT_EDGES_MS } from './histogram';
export { formatReport } from './format-text';
export { toProfileJson } from './profile-json';
export {
  BOUNDARY_KINDS,
  SEED_PHASES,
  SEED_SERVER_PHASES,
  SEED_TTFT_PHASES,
  NESTED_PARTS,
  SEED_REMEDIES,
  PERCENTILE_METHOD,
} from './seed-phases';
export type { Boundary, SeedPhase, SeedServerPhase } from './seed-phases';
export type { BoundaryPhases, SeedDominant } from './boundary-phases';
export { BROKEN_RULE, isCompletedCode } from './client-boundary';
export type { ClientBoundary, BrokenMeasurements } from './client-boundary';
export { armSummary } from './arm-summary';
export type { ArmSummary } from './arm-summary';

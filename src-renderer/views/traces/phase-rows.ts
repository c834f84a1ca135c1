import { NESTED_PARTS, SEED_PHASES } from '../../../src-main/telemetry/report/seed-phases';
import type { BoundaryPhases } from '../../../src-main/telemetry/report/boundary-phases';
import type { SeedPhase } from '../../../src-main/telemetry/report/seed-phases';
import { PART_LABELS } from '../../parts/part-colors';
import { SEED_PHASE_NAMES } from '../../../src-main/telemetry/report/phases';
import type { TtftPhase } from '../../../src-main/telemetry/report/remedies';

/** Time before the first word that no recorded stamp explains: a row of its own. */
export const UNEXPLAINED_LABEL = PART_LABELS.unattributed;

/** One row of the phase table: its mean, its share of the whole request, the parts inside. */
export interface PhaseRow {
  key: SeedPhase | 'unattributed';
  label: string;
  /** Mean over the report's requests in ms; null when this boundary cannot see the phase. */
  meanMs: number | null;
  /** Share of the whole request (every row's mean summed), so the shares add to 100%. */
  share: number | null;
  /** The server parts inside, by their plain names, e.g. "loading the model 12.0 ms". */
  parts: { label: string; ms: number }[];
}

/**
 * The rows of the phase table with every share taken of one total: the sum of the rows'
 * means (the mean whole request plus nothing else). The report's own shares mix two totals
 * (the phases before the first word as shares of TTFT, the stream as a share of E2E), which
 * is why its column could add to more than 100%.
 */
export function phaseRowsOf(phases: BoundaryPhases): PhaseRow[] {
  const rows: PhaseRow[] = SEED_PHASES.map((phase) => ({
    key: phase,
    label: SEED_PHASE_NAMES[phase],
    meanMs: phases.meansMs[phase],
    share: null,
    parts: NESTED_PARTS[phase]
      .map((part) => ({ label: PART_LABELS[part as TtftPhase], ms: phases.nestedMeansMs[phase][part] ?? 0 }))
      .filter((p) => p.ms > 0),
  }));
  const unexplainedMs = phases.unattributedMeanMs ?? 0;
  if (unexplainedMs > 0)
    rows.splice(SEED_PHASES.indexOf('stream'), 0, {
      key: 'unattributed',
      label: UNEXPLAINED_LABEL,
      meanMs: unexplainedMs,
      share: null,
      parts: [],
    });
  const totalMs = rows.reduce((sum, row) => sum + Math.max(0, row.meanMs ?? 0), 0);
  return rows.map((row) => ({
    ...row,
    share: row.meanMs === null || totalMs <= 0 ? null : Math.max(0, row.meanMs) / totalMs,
  }));
}

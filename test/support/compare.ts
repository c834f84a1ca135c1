import type { RunComparison } from '../../src-main/service/contract/report-schemas';

/**
 * A run's row in a comparison without what names it (run id, name, configuration and run
 * labels, quality): the measured figures alone, so a re-imported run can be checked against its original.
 */
export function figuresOf(comparison: RunComparison, runId: string) {
  const rows = comparison.workloads.flatMap((w) => w.rows);
  const {
    runId: _r,
    name: _n,
    configLabel: _c,
    runLabel: _l,
    quality: _q,
    ...figures
  } = rows.find((r) => r.runId === runId)!;
  return figures;
}

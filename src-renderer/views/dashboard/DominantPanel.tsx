import type { LatencyReport } from '../../../src-main/telemetry/report/types';
import { PHASE_NAMES } from '../../../src-main/telemetry/report/phases';
import { PART_COLORS, PART_LABELS } from '../../parts/part-colors';
import { formatMs, formatShare } from '../../components/format';
import { useSlice } from '../../store/react';

/** Parts whose next test is an experiment over a runtime setting the Bench view can run. */
const EXPERIMENT_PARTS: ReadonlySet<string> = new Set(['queue', 'requeue', 'lostPrefill']);

/** The part with the largest mean and the experiment to run next (seed 003's remedies). */
export function DominantPanel(props: { report: LatencyReport }) {
  const ttft = props.report.dominantTtftPhase;
  const e2e = props.report.dominantE2ePhase;
  const setView = useSlice('ui', (s) => s.setView);
  if (!ttft) return <p className="empty-chart">Nothing dominates an empty window.</p>;
  return (
    <div className="dominant" data-testid="dominant-part" data-value={ttft.phase}>
      <p className="dominant-name">
        <span className="swatch" style={{ backgroundColor: PART_COLORS[ttft.phase] }} />
        <b>{PART_LABELS[ttft.phase]}</b> — {formatMs(ttft.meanMs)} mean, {formatShare(ttft.share)} of TTFT
      </p>
      <p className="next-test">
        <b>Next test:</b> {ttft.nextTest}
        {EXPERIMENT_PARTS.has(ttft.phase) && (
          <>
            {' '}
            <button type="button" data-testid="dominant-run-experiment" onClick={() => setView('bench')}>
              Run the experiment (Bench)
            </button>
          </>
        )}
      </p>
      {e2e && e2e.phase !== ttft.phase && (
        <p className="muted">
          Over the whole request, <b>{PHASE_NAMES[e2e.phase]}</b> dominates ({formatMs(e2e.meanMs)} mean):{' '}
          {e2e.nextTest}
        </p>
      )}
    </div>
  );
}

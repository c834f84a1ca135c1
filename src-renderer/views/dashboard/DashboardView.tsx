import { useSlice } from '../../store';
import { BoundaryPhasesPanel } from './BoundaryPhasesPanel';
import { GoodputPanel } from './GoodputPanel';
import { LittleAndClassesPanel } from './LittleAndClassesPanel';
import { LoadChart } from './LoadChart';
import { RecentBarsChart } from './RecentBarsChart';
import { ReportSummary } from './ReportSummary';
import { ExportControl, Panel, PartLegend, formatCount } from '../../components';

/**
 * The live dashboard. It renders only the throttled view (≤ 4 updates/s) so 10,000 timelines
 * in the window cost one report per update, not one per event.
 */
export function DashboardView() {
  const view = useSlice('live', (s) => s.view);
  const slo = useSlice('live', (s) => s.slo);
  const setSlo = useSlice('live', (s) => s.setSlo);
  const boundary = useSlice('live', (s) => s.boundary);
  const setBoundary = useSlice('live', (s) => s.setBoundary);
  const r = view.report;
  return (
    <div className="dashboard">
      <Panel
        title={`Recent requests (${formatCount(r.numRequests)} in window)`}
        className="wide"
        actions={
          <>
            <PartLegend isCompact />
            <ExportControl runId={null} label="Export the window" />
          </>
        }
      >
        <RecentBarsChart timelines={view.recent} />
      </Panel>
      <ReportSummary report={r} title="Percentiles (nearest rank)" />
      <Panel title="Seats and queue">
        <LoadChart load={view.load} />
      </Panel>
      <Panel title="Goodput and failures">
        <GoodputPanel report={r} slo={slo} onSlo={setSlo} boundary={boundary} onBoundary={setBoundary} />
      </Panel>
      <Panel title="Seed 003 phases">
        <BoundaryPhasesPanel report={r} />
      </Panel>
      <Panel title="Little's law and request classes" className="wide">
        <LittleAndClassesPanel report={r} />
      </Panel>
    </div>
  );
}

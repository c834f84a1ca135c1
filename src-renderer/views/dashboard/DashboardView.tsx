import { GoodputPanel } from './GoodputPanel';
import { LittleAndClassesPanel } from './LittleAndClassesPanel';
import { LoadChart } from './LoadChart';
import { RecentAnswersPanel } from './RecentAnswersPanel';
import { ReportSummary } from './ReportSummary';
import { SimpleDashboard } from './SimpleDashboard';
import { SourcePicker } from './SourcePicker';
import { TracePhasesPanel } from '../traces/TracePhasesPanel';
import { Panel } from '../../components/Panel';
import { PART_LAYERS } from '../../parts/bar-layers';
import { useSlice } from '../../store/react';

/**
 * The live dashboard. It renders only the throttled view (≤ 4 updates/s) so 10,000 timelines
 * in the window cost one report per update, not one per event. Simple (the default) shows the
 * plain panels; Expert every part, formula and report.
 */
export function DashboardView() {
  const isExpert = useSlice('ui', (s) => s.preferences.viewMode === 'expert');
  return isExpert ? <ExpertDashboard /> : <SimpleDashboard />;
}

function ExpertDashboard() {
  const view = useSlice('live', (s) => s.view);
  const slo = useSlice('live', (s) => s.slo);
  const setSlo = useSlice('live', (s) => s.setSlo);
  const boundary = useSlice('live', (s) => s.boundary);
  const setBoundary = useSlice('live', (s) => s.setBoundary);
  const r = view.report;
  return (
    <div className="dashboard" data-testid="dashboard" data-mode="expert">
      <SourcePicker />
      <RecentAnswersPanel
        layers={PART_LAYERS}
        hint="the live window: the newest requests this app served, each bar its time to first token split into parts"
      />
      <ReportSummary report={r} title="How long answers took" hint="percentiles by nearest rank" />
      <Panel title="Answers running and waiting" hint="seats in use and the queue, over time">
        <LoadChart load={view.load} />
      </Panel>
      <Panel
        title="Answers within your targets"
        hint="goodput against the TTFT and ITL objectives (SLOs), and failures"
      >
        <GoodputPanel report={r} slo={slo} onSlo={setSlo} boundary={boundary} onBoundary={setBoundary} />
      </Panel>
      <Panel
        title="Where the time went, end to end"
        hint="seven phases from sending the request to its last word, measured at the window or at First Frame"
      >
        <TracePhasesPanel report={r} />
      </Panel>
      <Panel
        title="Load check and kinds of request"
        hint="Little's law (L = λW) over the window, and per-class cells"
        className="wide"
      >
        <LittleAndClassesPanel report={r} />
      </Panel>
    </div>
  );
}

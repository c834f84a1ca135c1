import type { LatencyReport } from '../../../src-main/telemetry/report';
import { DominantPanel } from './DominantPanel';
import { ExceedancePanel } from './ExceedancePanel';
import { PartShares } from './PartShares';
import { PercentileTable } from './PercentileTable';
import { Panel, PartLegend } from '../../components';

/**
 * The panels every report gets, live or stored: percentiles, part shares, the dominant part
 * with its next test, and the split at p95. `title` heads the percentile panel.
 */
export function ReportSummary(props: { report: LatencyReport; title: string }) {
  const r = props.report;
  return (
    <>
      <Panel title={props.title} className="wide">
        {r.note && <p className="muted">{r.note}</p>}
        <PercentileTable report={r} />
      </Panel>
      <Panel title="Part shares (means)" actions={<PartLegend isCompact />}>
        <PartShares report={r} />
      </Panel>
      <Panel title="Dominant part">
        <DominantPanel report={r} />
      </Panel>
      <Panel title="Above p95">
        <ExceedancePanel report={r} />
      </Panel>
    </>
  );
}

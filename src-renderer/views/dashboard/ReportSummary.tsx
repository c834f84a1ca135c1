import type { LatencyReport } from '../../../src-main/telemetry/report/types';
import { DominantPanel } from './DominantPanel';
import { ExceedancePanel } from './ExceedancePanel';
import { PartShares } from './PartShares';
import { PercentileTable } from './PercentileTable';
import { Panel } from '../../components/Panel';
import { PartLegend } from '../../components/PartLegend';

/**
 * The panels every report gets, live or stored: percentiles, part shares, the dominant part
 * with its next test, and the split at p95. `title` heads the percentile panel.
 */
export function ReportSummary(props: { report: LatencyReport; title: string; hint?: string }) {
  const r = props.report;
  return (
    <>
      <Panel title={props.title} className="wide" {...(props.hint ? { hint: props.hint } : {})}>
        {r.note && <p className="muted">{r.note}</p>}
        <PercentileTable report={r} />
      </Panel>
      <Panel title="Share of each part" hint="mean of each timeline part" actions={<PartLegend isCompact />}>
        <PartShares report={r} />
      </Panel>
      <Panel title="What took longest" hint="the dominant part and the next test to run">
        <DominantPanel report={r} />
      </Panel>
      <Panel title="The slowest answers" hint="requests above the 95th percentile (p95): what they share">
        <ExceedancePanel report={r} />
      </Panel>
    </>
  );
}

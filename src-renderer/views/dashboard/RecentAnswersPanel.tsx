import { RecentBarsChart } from './RecentBarsChart';
import { ExportControl } from '../../components/ExportControl';
import { formatCount } from '../../components/format';
import { Panel } from '../../components/Panel';
import { PartLegend } from '../../components/PartLegend';
import type { BarLayer } from '../../parts/bar-layers';
import { useSlice } from '../../store/react';

/**
 * The live window's newest answers as stacked bars in `layers` (every part in Expert, the four
 * groups in Simple), with their legend and the window's export.
 */
export function RecentAnswersPanel(props: { layers: readonly BarLayer[]; hint: string }) {
  const view = useSlice('live', (s) => s.view);
  return (
    <Panel
      title={`Recent answers (${formatCount(view.report.numRequests)})`}
      hint={props.hint}
      className="wide"
      actions={
        <>
          <PartLegend layers={props.layers} isCompact />
          <ExportControl runId={null} label="Export the window" />
        </>
      }
    >
      <RecentBarsChart timelines={view.recent} layers={props.layers} />
    </Panel>
  );
}

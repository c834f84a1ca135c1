import { useMemo, useState } from 'react';
import { CartesianGrid, ComposedChart, Line, ResponsiveContainer, XAxis, YAxis } from 'recharts';
import type { Timeline } from '../../../src-main/telemetry/timeline/schema';
import { slicesOf } from '../../parts';
import type { BarRow } from './bar-rows';
import { barRows, niceCeil } from './bar-rows';
import { StackedBarsLayer } from './StackedBarsLayer';
import { describeSlice, formatMs } from '../../components';

/**
 * Stacked TTFT bars of the most recent requests (at most 200: more is unreadable and slow),
 * one segment per phase in the fixed colours, drawn on recharts axes with no animation.
 */
export function RecentBarsChart(props: { timelines: readonly Timeline[] }) {
  const rows = useMemo(() => barRows(props.timelines), [props.timelines]);
  const [hovered, setHovered] = useState<number | null>(null);
  if (rows.length === 0) return <p className="empty-chart">No requests with a first token yet.</p>;
  const topMs = niceCeil(Math.max(...rows.map((r) => r.totalMs)));
  const hoveredRow = hovered === null ? undefined : rows[hovered];
  return (
    <div className="chart" data-testid="recent-ttft-chart" data-count={rows.length}>
      <ResponsiveContainer width="100%" height={260}>
        <ComposedChart data={rows} margin={{ top: 8, right: 8, bottom: 0, left: 8 }}>
          <CartesianGrid vertical={false} />
          <XAxis
            dataKey="index"
            type="number"
            domain={[-0.5, rows.length - 0.5]}
            tick={false}
            height={24}
            label={{ value: `last ${rows.length} requests →`, position: 'insideBottomRight' }}
          />
          <YAxis type="number" domain={[0, topMs]} tickFormatter={(v: number) => formatMs(v)} width={70} />
          {/* An invisible series: recharts lays out axes only for charts that plot something. */}
          <Line dataKey="totalMs" stroke="none" dot={false} activeDot={false} isAnimationActive={false} />
          <StackedBarsLayer rows={rows} hovered={hovered} onHover={setHovered} />
        </ComposedChart>
      </ResponsiveContainer>
      <p className="ttft-bar-hover">{hoveredRow ? describeRow(hoveredRow) : '\u00a0'}</p>
    </div>
  );
}

function describeRow(row: BarRow): string {
  return `${row.requestId.slice(0, 8)} · ${formatMs(row.totalMs)}: ${slicesOf(row.phasesMs).map(describeSlice).join(', ')}`;
}

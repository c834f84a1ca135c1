import { useMemo, useState } from 'react';
import type { MouseEvent } from 'react';
import { CartesianGrid, ComposedChart, Line, ResponsiveContainer, XAxis, YAxis } from 'recharts';
import type { Timeline } from '../../../src-main/telemetry/timeline/schema';
import { PART_LAYERS, layerMs } from '../../parts/bar-layers';
import { partInGroupOf } from '../../parts/simple-groups';
import type { BarLayer } from '../../parts/bar-layers';
import type { BarRow } from './bar-rows';
import { barRows, indexTicks, niceCeil, valueTicks } from './bar-rows';
import { StackedBarsLayer } from './StackedBarsLayer';
import { formatClock, formatMs, formatShare } from '../../components/format';

/**
 * Stacked TTFT bars of the most recent requests (at most 200: more is unreadable and slow),
 * one segment per layer (each part in Expert, four plain groups in Simple) in the fixed
 * colours, drawn on recharts axes with no animation. The x axis reads each request's start
 * time, the y axis its TTFT; hovering a bar shows its layers.
 */
export function RecentBarsChart(props: { timelines: readonly Timeline[]; layers: readonly BarLayer[] }) {
  const rows = useMemo(() => barRows(props.timelines), [props.timelines]);
  const [hovered, setHovered] = useState<number | null>(null);
  const [pointer, setPointer] = useState<{ x: number; y: number } | null>(null);
  const isGrouped = props.layers !== PART_LAYERS;
  if (rows.length === 0)
    return (
      <p className="empty-chart">{isGrouped ? 'No answers yet.' : 'No requests with a first token yet.'}</p>
    );
  const topMs = niceCeil(Math.max(...rows.map((r) => r.totalMs)));
  const hoveredRow = hovered === null ? undefined : rows[hovered];
  const onMove = (event: MouseEvent<HTMLDivElement>) => {
    const box = event.currentTarget.getBoundingClientRect();
    setPointer({ x: event.clientX - box.left, y: event.clientY - box.top });
  };
  return (
    <div
      className="chart"
      data-testid="recent-ttft-chart"
      data-count={rows.length}
      onMouseMove={onMove}
      onMouseLeave={() => setPointer(null)}
    >
      <ResponsiveContainer width="100%" height={280}>
        <ComposedChart data={rows} margin={{ top: 8, right: 12, bottom: 8, left: 8 }}>
          <CartesianGrid vertical={false} />
          <XAxis
            dataKey="index"
            type="number"
            domain={[-0.5, rows.length - 0.5]}
            ticks={indexTicks(rows.length)}
            tickFormatter={(i: number) => (rows[i] ? formatClock(rows[i].wallStartMs) : '')}
            height={44}
            label={{
              value:
                rows.length === 1
                  ? `the last ${isGrouped ? 'answer' : 'request'}, by start time →`
                  : `last ${rows.length} ${isGrouped ? 'answers' : 'requests'}, by start time →`,
              position: 'insideBottom',
              className: 'axis-title',
            }}
          />
          <YAxis
            type="number"
            domain={[0, topMs]}
            ticks={valueTicks(topMs)}
            tickFormatter={(v: number) => formatMs(v)}
            width={78}
            label={{
              value: isGrouped ? 'first word' : 'first word (TTFT)',
              angle: -90,
              position: 'insideLeft',
              className: 'axis-title',
            }}
          />
          {/* An invisible series: recharts lays out axes only for charts that plot something. */}
          <Line dataKey="totalMs" stroke="none" dot={false} activeDot={false} isAnimationActive={false} />
          <StackedBarsLayer rows={rows} layers={props.layers} hovered={hovered} onHover={setHovered} />
        </ComposedChart>
      </ResponsiveContainer>
      {hoveredRow && pointer && <BarTooltip row={hoveredRow} layers={props.layers} at={pointer} />}
    </div>
  );
}

/** The hovered bar's request, start time, TTFT and every non-zero layer with its share. */
function BarTooltip(props: { row: BarRow; layers: readonly BarLayer[]; at: { x: number; y: number } }) {
  const { row, at } = props;
  const shown = props.layers
    .map((layer) => ({ layer, ms: layerMs(layer, row.phasesMs) }))
    .filter((s) => s.ms > 0);
  return (
    <div
      className="chart-tooltip"
      data-testid="chart-tooltip"
      ref={(el) => {
        if (!el) return;
        // Placed through CSSOM (the CSP forbids inline style attributes); kept inside the chart.
        const width = el.parentElement?.clientWidth ?? 0;
        el.style.left = `${Math.max(0, Math.min(at.x + 12, width - el.offsetWidth))}px`;
        el.style.top = `${Math.max(0, at.y - el.offsetHeight - 8)}px`;
      }}
    >
      <b>{formatMs(row.totalMs)}</b> · request {row.requestId.slice(0, 8)} · {formatClock(row.wallStartMs)}
      <ul>
        {shown.map(({ layer, ms }) => (
          <li key={layer.key} data-layer={layer.key}>
            <span className="swatch" style={{ backgroundColor: layer.color }} />
            {layer.label} {formatMs(ms)} ({formatShare(row.totalMs > 0 ? ms / row.totalMs : 0)})
            {layer.phases.length > 1 && <span className="muted"> {partsInside(layer, row)}</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** A group's non-zero parts in this bar, "for a turn 2.1 ms, to be picked up 0.30 ms": the truth under a plain name. */
function partsInside(layer: BarLayer, row: BarRow): string {
  return layer.phases
    .filter((phase) => row.phasesMs[phase] > 0)
    .map((phase) => `${partInGroupOf(phase)} ${formatMs(row.phasesMs[phase])}`)
    .join(', ');
}

import { usePlotArea, useXAxisScale, useYAxisScale } from 'recharts';
import type { BarLayer } from '../../parts/bar-layers';
import type { BarGeometry, BarRow } from './bar-rows';
import { stackedPaths } from './bar-rows';

/**
 * Draws stacked TTFT bars inside a recharts chart, on the chart's own axis scales (recharts
 * hooks), as one path per layer (a part, or a Simple group). A transparent overlay reports which bar the pointer is over.
 */
export function StackedBarsLayer(props: {
  rows: readonly BarRow[];
  layers: readonly BarLayer[];
  hovered: number | null;
  onHover(index: number | null): void;
}) {
  const xScale = useXAxisScale();
  const yScale = useYAxisScale();
  const plot = usePlotArea();
  if (!xScale || !yScale || !plot || props.rows.length === 0) return null;
  const centerX = (index: number) => Number(xScale(index) ?? 0);
  const geometry: BarGeometry = {
    centerX,
    slotWidth: props.rows.length > 1 ? Math.abs(centerX(1) - centerX(0)) : plot.width,
    y: (valueMs) => Number(yScale(valueMs) ?? 0),
  };
  const paths = stackedPaths(props.rows, geometry, props.layers);
  const indexAt = (clientX: number, rect: DOMRect) => {
    const index = Math.round(((clientX - rect.left) / rect.width) * props.rows.length - 0.5);
    return Math.min(props.rows.length - 1, Math.max(0, index));
  };
  return (
    <g className="stacked-bars">
      {props.hovered !== null && (
        <rect
          className="bar-highlight"
          x={centerX(props.hovered) - geometry.slotWidth / 2}
          y={plot.y}
          width={geometry.slotWidth}
          height={plot.height}
        />
      )}
      {props.layers.map((layer) =>
        paths[layer.key] ? (
          <path key={layer.key} d={paths[layer.key]} fill={layer.color} data-layer={layer.key} />
        ) : null,
      )}
      <rect
        x={plot.x}
        y={plot.y}
        width={plot.width}
        height={plot.height}
        fill="transparent"
        onMouseMove={(e) => props.onHover(indexAt(e.clientX, e.currentTarget.getBoundingClientRect()))}
        onMouseLeave={() => props.onHover(null)}
      />
    </g>
  );
}

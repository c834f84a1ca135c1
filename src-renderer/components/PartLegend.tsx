import { PART_LAYERS } from '../parts/bar-layers';
import type { BarLayer } from '../parts/bar-layers';

/**
 * The one legend of bar colours, beside every chart and bar that draws parts: every part by
 * default, or the Simple view's groups (each naming its parts on hover).
 */
export function PartLegend(props: { layers?: readonly BarLayer[]; isCompact?: boolean }) {
  const layers = props.layers ?? PART_LAYERS;
  const isGrouped = layers !== PART_LAYERS;
  return (
    <ul
      className={props.isCompact ? 'part-legend compact' : 'part-legend'}
      aria-label={isGrouped ? 'Where the time goes' : 'TTFT parts'}
    >
      {layers.map((layer) => (
        <li key={layer.key} title={layer.explanation}>
          <span className={`swatch ttft-seg-${layer.key}`} style={{ backgroundColor: layer.color }} />
          {layer.label}
        </li>
      ))}
    </ul>
  );
}

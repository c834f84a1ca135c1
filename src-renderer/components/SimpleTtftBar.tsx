import { groupSlicesOf } from '../parts/simple-groups';
import type { TtftPhase } from '../../src-main/telemetry/report/remedies';
import { formatMs, formatShare } from './format';

/**
 * The Simple view's bar: the same TTFT in four plain groups (waiting, loading the model,
 * reading your prompt, first word), each as wide as its share, the parts inside named on hover.
 */
export function SimpleTtftBar(props: {
  values: Partial<Record<TtftPhase, number | null>>;
  /** What the window added after the server's first chunk (drawn inside "first word"), if known. */
  transportMs?: number | null;
}) {
  const slices = groupSlicesOf(props.values, props.transportMs ?? null);
  const describe = slices.map((s) => `${s.group.label} ${formatMs(s.ms)}`).join(', ');
  return (
    <div className="ttft-bar-wrap">
      <div className="ttft-bar" data-testid="ttft-groups" role="img" aria-label={describe}>
        {slices.map((slice) => (
          <div
            key={slice.group.key}
            className="ttft-seg"
            data-testid={`ttft-group-${slice.group.key}`}
            data-ms={slice.ms.toFixed(3)}
            title={`${slice.group.label} ${formatMs(slice.ms)} (${formatShare(slice.share)}): ${slice.group.explanation} (${slice.detail})`}
            style={{ width: `${slice.share * 100}%`, backgroundColor: slice.group.color }}
          />
        ))}
      </div>
      <ul className="part-legend compact simple-legend" aria-label="Where the time went">
        {slices.map((slice) => (
          <li key={slice.group.key} title={slice.group.explanation}>
            <span className="swatch" style={{ backgroundColor: slice.group.color }} />
            {slice.group.label} {formatMs(slice.ms)}
          </li>
        ))}
      </ul>
    </div>
  );
}

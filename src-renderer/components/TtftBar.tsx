import { useState } from 'react';
import { PART_COLORS, PART_EXPLANATIONS, PART_LABELS } from '../parts/part-colors';
import { slicesOf } from '../parts/phase-values';
import type { BarPhase } from '../parts/part-colors';
import type { PhaseSlice } from '../parts/phase-values';
import { formatMs, formatShare } from './format';

/** A hovered slice, described: "reading your prompt · the new words 12.3 ms (45.0%)". */
export function describeSlice(slice: PhaseSlice): string {
  return `${PART_LABELS[slice.phase]} ${formatMs(slice.ms)} (${formatShare(slice.share)})`;
}

/**
 * A horizontal stacked bar of TTFT phases, each segment as wide as its share, in the fixed
 * phase colours. Hovering a segment names it with its ms and %; the parts list beside it
 * reaches the segments too thin to hover. Zero phases draw nothing.
 */
export function TtftBar(props: { values: Partial<Record<BarPhase, number | null>>; testId?: string }) {
  const slices = slicesOf(props.values);
  const [hovered, setHovered] = useState<PhaseSlice | null>(null);
  return (
    <div className="ttft-bar-wrap">
      <div
        className="ttft-bar"
        data-testid={props.testId ?? 'ttft-bar'}
        role="img"
        aria-label={slices.map(describeSlice).join(', ')}
      >
        {slices.map((slice) => (
          <div
            key={slice.phase}
            className={`ttft-seg ttft-seg-${slice.phase}`}
            data-testid={`ttft-part-${slice.phase}`}
            data-ms={slice.ms.toFixed(3)}
            title={`${describeSlice(slice)}: ${PART_EXPLANATIONS[slice.phase]}`}
            style={{ width: `${slice.share * 100}%`, backgroundColor: PART_COLORS[slice.phase] }}
            onMouseEnter={() => setHovered(slice)}
            onMouseLeave={() => setHovered(null)}
          />
        ))}
      </div>
      <div className="ttft-bar-under">
        <span className="ttft-bar-hover" aria-live="polite">
          {hovered ? describeSlice(hovered) : '\u00a0'}
        </span>
        {slices.length > 0 && <PartsList slices={slices} />}
      </div>
    </div>
  );
}

/** Every part of the bar as a list: the thinnest segments are reachable here. */
function PartsList(props: { slices: readonly PhaseSlice[] }) {
  return (
    <details className="ttft-parts" data-testid="ttft-parts">
      <summary>all {props.slices.length} parts</summary>
      <ul>
        {props.slices.map((slice) => (
          <li key={slice.phase} title={PART_EXPLANATIONS[slice.phase]} data-phase={slice.phase}>
            <span className="swatch" style={{ backgroundColor: PART_COLORS[slice.phase] }} />
            {describeSlice(slice)}
          </li>
        ))}
      </ul>
    </details>
  );
}

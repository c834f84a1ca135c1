import { PART_COLORS, PART_EXPLANATIONS, PART_LABELS, PHASES } from '../parts';
import type { TtftPhase } from '../parts';

/** The one legend of phase colours, used beside every chart and bar that draws phases. */
export function PartLegend(props: { phases?: readonly TtftPhase[]; isCompact?: boolean }) {
  const phases = props.phases ?? PHASES;
  return (
    <ul className={props.isCompact ? 'part-legend compact' : 'part-legend'} aria-label="TTFT parts">
      {phases.map((phase) => (
        <li key={phase} title={PART_EXPLANATIONS[phase]}>
          <span className={`swatch ttft-seg-${phase}`} style={{ backgroundColor: PART_COLORS[phase] }} />
          {PART_LABELS[phase]}
        </li>
      ))}
    </ul>
  );
}

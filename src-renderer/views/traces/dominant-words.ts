import type { BoundaryPhases } from '../../../src-main/telemetry/report/boundary-phases';
import { PART_LABELS } from '../../parts/part-colors';
import { formatMs, formatShare } from '../../components/format';
import { SEED_PHASE_NAMES } from '../../../src-main/telemetry/report/phases';

/**
 * What took longest before the first word, in plain words, with the next thing to try. When
 * the phase has server parts inside, the advice is the largest part's (it names what to change
 * in this app; the phase-level advice speaks of gateways, which a local app does not have).
 */
export function dominantWordsOf(phases: BoundaryPhases): string | null {
  const t = phases.dominantTtft;
  if (!t) return null;
  const label = SEED_PHASE_NAMES[t.phase];
  const head = `${label[0]!.toUpperCase()}${label.slice(1)} took longest before the first word (${formatMs(t.meanMs)} mean, ${formatShare(t.share)} of the wait for it)`;
  if (t.part && t.partNextTest)
    return `${head}. Inside it, ${PART_LABELS[t.part]} took most: ${t.partNextTest}.`;
  return `${head}: ${t.nextTest}.`;
}

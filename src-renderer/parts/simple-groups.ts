import {
  PHASE_DETAILS,
  PHASE_NAMES,
  PHASE_STAGES,
  STAGE_NAMES,
} from '../../src-main/telemetry/report/phases';
import type { WaitStage } from '../../src-main/telemetry/report/phases';
import { PHASES } from './part-colors';
import type { TtftPhase } from './part-colors';
import { formatMs } from '../components/format';

/** A group of the Simple view's bar: a stage of the wait, with the timeline parts it holds. */
export interface SimpleGroup {
  key: WaitStage;
  label: string;
  color: string;
  explanation: string;
  phases: readonly TtftPhase[];
}

/** What each stage covers, in a sentence (the hover). */
const STAGE_LOOKS: Readonly<Record<WaitStage, { color: string; explanation: string }>> = {
  waiting: {
    color: '#e67e22',
    explanation: 'Waiting for its turn: requests ahead of it, or the engine finishing what it was doing.',
  },
  loading: {
    color: '#e74c3c',
    explanation: 'Loading the model into memory (nothing when it was already loaded).',
  },
  reading: {
    color: '#2e86de',
    explanation:
      'Reading the conversation: preparing it and running the model over the words it had not seen before.',
  },
  'first-token': {
    color: '#00bcd4',
    explanation:
      'Picking the first word and sending it out; when the window measured its own wait, the trip to the window too.',
  },
};

/**
 * The Simple view's four groups, the report's stages (PHASE_STAGES), covering every part exactly
 * once (so the groups sum to the same TTFT as the parts). Time no stamp explains is counted
 * under "waiting" and named in its hover; Expert shows it on its own.
 */
export const SIMPLE_GROUPS: readonly SimpleGroup[] = (Object.keys(STAGE_LOOKS) as WaitStage[]).map((key) => ({
  key,
  label: STAGE_NAMES[key],
  ...STAGE_LOOKS[key],
  phases: PHASES.filter((phase) => PHASE_STAGES[phase] === key),
}));

/** A part's name inside its group (the group's name is said once): its detail, or the stage's name. */
export function partInGroupOf(phase: TtftPhase): string {
  return PHASE_DETAILS[phase] ?? STAGE_NAMES[PHASE_STAGES[phase]];
}

/** One drawn group: its ms, its share of the whole, and the parts inside it (for the hover). */
export interface GroupSlice {
  group: SimpleGroup;
  ms: number;
  share: number;
  detail: string;
}

/** The Simple bar's name for what the window added after the server sent the first word. */
const TRANSPORT_LABEL = PHASE_NAMES.transport;

/**
 * The non-zero groups of a TTFT with their shares; widths add to 100%, like the parts bar.
 * `transportMs` (client − server TTFT, ≥ 0 when known) is drawn inside "first word", so the
 * groups then sum to the wait the window saw rather than the server's TTFT.
 */
export function groupSlicesOf(
  values: Partial<Record<TtftPhase, number | null>>,
  transportMs: number | null = null,
): GroupSlice[] {
  const extraMs = Math.max(0, transportMs ?? 0);
  const sums = SIMPLE_GROUPS.map(
    (group) =>
      group.phases.reduce((sum, phase) => sum + Math.max(0, values[phase] ?? 0), 0) +
      (group.key === 'first-token' ? extraMs : 0),
  );
  const totalMs = sums.reduce((a, b) => a + b, 0);
  if (totalMs <= 0) return [];
  return SIMPLE_GROUPS.flatMap((group, i) => {
    const ms = sums[i]!;
    if (ms <= 0) return [];
    const details = group.phases
      .filter((phase) => (values[phase] ?? 0) > 0)
      .map((phase) => `${partInGroupOf(phase)} ${formatMs(values[phase] ?? 0)}`);
    if (group.key === 'first-token' && extraMs > 0) details.push(`${TRANSPORT_LABEL} ${formatMs(extraMs)}`);
    const detail = details.join(', ');
    return [{ group, ms, share: ms / totalMs, detail }];
  });
}

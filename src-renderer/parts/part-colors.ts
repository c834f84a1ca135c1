import { PHASE_NAMES, stagedName, TTFT_PHASES } from '../../src-main/telemetry/report/phases';
import type { TtftPhase } from '../../src-main/telemetry/report/remedies';

export type { TtftPhase };
/** Every TTFT phase in life order, `unattributed` last: the order of every bar and legend. */
export const PHASES: readonly TtftPhase[] = TTFT_PHASES;

/** A phase an answer's bar draws: the TTFT phases, and the disk read cut from queue (deriveBarParts). */
export type BarPhase = TtftPhase | 'diskRead';
/** The bar's phases in life order: the disk read happens inside the queue wait, so it follows it. */
export const BAR_PHASES: readonly BarPhase[] = PHASES.flatMap((p): BarPhase[] =>
  p === 'queue' ? ['queue', 'diskRead'] : [p],
);

/**
 * One fixed colour per phase, the same in every chart, bar and legend. Mid-tone hues so each
 * reads on the light and the dark background alike; waits are warm, compute is cool, and the
 * time no stamp explains is grey (and striped where CSS draws it).
 */
export const PART_COLORS: Readonly<Record<BarPhase, string>> = {
  inbox: '#9b59b6',
  route: '#16a085',
  slotLoad: '#e74c3c',
  queue: '#e67e22',
  diskRead: '#a0522d',
  requeue: '#f06292',
  lostPrefill: '#8d6e63',
  activation: '#c0a000',
  contextLookup: '#4caf50',
  prefill: '#2e86de',
  emit: '#00bcd4',
  unattributed: '#95a5a6',
};

/** The disk read's detail within "waiting" (it happens while queued; the report has no such phase). */
export const DISK_READ_DETAIL = 'remembered context from disk';

/**
 * Human names for the phases, as the legend and tooltips print them (declared with the report):
 * each is the Simple stage's name with a detail ("waiting · for a turn"), one vocabulary.
 */
export const PART_LABELS: Readonly<Record<BarPhase, string>> = {
  ...PHASE_NAMES,
  diskRead: stagedName('waiting', DISK_READ_DETAIL),
};

/** What each phase is, in a sentence: shown on hover wherever a phase is named. */
export const PART_EXPLANATIONS: Readonly<Record<BarPhase, string>> = {
  inbox: 'Waiting for the engine loop to pick the request up (it finishes what it is doing first).',
  route: 'Reading the request: choosing the model, rendering the chat template, tokenizing, checking limits.',
  slotLoad: 'Waiting for the model to be loaded into memory (zero when it was already loaded).',
  queue: 'Waiting for a free seat in the running batch and room in K/V memory.',
  diskRead:
    'Reading remembered context (pages of this conversation kept from before, e.g. before a restart) back from disk while queued.',
  requeue: 'Back in the queue after being preempted to free K/V memory.',
  lostPrefill: 'Prefill work a preemption threw away (it is computed again).',
  activation: 'Binding the request to its model slot for execution.',
  contextLookup: 'Finding the cached context pages of the prompt and assembling them.',
  prefill: 'Running the model over the prompt tokens no cached page covered.',
  emit: 'Sampling the first token, turning it into text and sending it out.',
  unattributed: 'Time no recorded stamp explains (shown on its own, never folded into a neighbour).',
};

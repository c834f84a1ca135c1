import { z } from 'zod';
import { DiagnosisSchema } from './diagnosis';
import { TTFT_PARTS } from './parts';
import type { TtftPart } from './parts';
import { RemoteFactsSchema } from './remote-facts';

// Declared in parts.ts so that remote-facts.ts can use them without an import cycle.
export { TTFT_PARTS };
export type { TtftPart };

/**
 * Why a request or an answer ended. `rejected` is an explicit refusal (full queue, bad input),
 * not a hang. `interrupted`: the app stopped (killed, crashed) while the answer streamed; only a
 * stored answer ends so, read from its checkpoint at the next start (a request's timeline died
 * with the process, and no database column holds it).
 */
export const FINISH_REASONS = [
  'stop',
  'length',
  'cancelled',
  'deadline',
  'rejected',
  'error',
  'interrupted',
] as const;
export type FinishReason = (typeof FINISH_REASONS)[number];
/** The finish reasons a request's timeline (and a message row) records: all but `interrupted`. */
export const RecordedFinishSchema = z.enum(FINISH_REASONS).exclude(['interrupted']);
/** See RecordedFinishSchema. */
export type RecordedFinishReason = z.infer<typeof RecordedFinishSchema>;
/**
 * The finish a stored answer is shown and exported with: every reason, `interrupted` included. An
 * interrupted answer is kept as its checkpoint (no finish in its row: RecordedFinishSchema); it
 * reads as `interrupted` once its request is gone, and an import stores it so again.
 */
export const AnswerFinishSchema = z.enum(FINISH_REASONS);

/**
 * States of a request's life as the runtime's state machine records them. `requeue` is the
 * queue after a preemption; `decode` begins when the first chunk is flushed.
 */
export const LIFE_STATES = [
  'inbox',
  'route',
  'slotLoad',
  'queue',
  'requeue',
  'activation',
  'contextLookup',
  'prefill',
  'emit',
  'decode',
] as const;
export type LifeState = (typeof LIFE_STATES)[number];

/**
 * The states of one admission's attempt at a first token, each its own TTFT part: a
 * preemption before the first token throws the attempt's time into `lostPrefill`.
 */
export const ATTEMPT_STATES = [
  'activation',
  'contextLookup',
  'prefill',
  'emit',
] as const satisfies readonly (LifeState & TtftPart)[];

/**
 * One recorded transition: the request entered `state` at monotonic instant `at` (ms). `endAt`
 * is the state's own end, stamped by whoever finished its work, independently of the next
 * state's start; the time between the two is unattributed. Absent: the state lasted until the
 * next one began (imported traces, and states whose end is the next one's start by definition).
 */
export const TransitionSchema = z.object({
  state: z.enum(LIFE_STATES),
  at: z.number(),
  endAt: z.number().optional(),
});
export type Transition = z.infer<typeof TransitionSchema>;

const msSchema = z.number().finite();
const countSchema = z.number().int().nonnegative();

/** Every part of server TTFT in ms; all ≥ 0. */
export const PartsSchema = z.object(
  Object.fromEntries(TTFT_PARTS.map((p) => [p, msSchema])) as Record<TtftPart, typeof msSchema>,
);
export type PartsMs = z.infer<typeof PartsSchema>;

/**
 * A finished request's timeline: the stored, exported and reported unit. Instants (`*At`) are
 * process-local monotonic ms; `wallStartMs` anchors them to the wall clock for storage only.
 * Invariant (checked by `checkTimeline`): parts + unattributed = ttft when ttft is known.
 */
export const TimelineSchema = z.object({
  requestId: z.string().min(1),
  source: z.enum(['runtime', 'import']),
  runId: z.string().nullable(),
  conversationId: z.string().nullable(),
  modelId: z.string(),
  modelRevision: z.string(),
  slotId: z.string().nullable(),
  isColdSlot: z.boolean(),
  wallStartMs: msSchema,
  arrivedAt: msSchema,
  firstTokenAt: msSchema.nullable(),
  finishedAt: msSchema,
  transitions: z.array(TransitionSchema),
  parts: PartsSchema,
  unattributedMs: msSchema,
  ttftMs: msSchema.nullable(),
  e2eMs: msSchema,
  itlMs: z.array(msSchema),
  numPromptTokens: countSchema,
  numCachedTokens: countSchema,
  numOutputTokens: countSchema,
  numPreemptions: countSchema,
  // Typed with every reason (callers switch over them all), checked against the recorded ones.
  finishReason: z.enum(FINISH_REASONS).refine((reason) => RecordedFinishSchema.safeParse(reason).success, {
    message: 'interrupted ends an answer, never a request (its timeline died with the process)',
  }),
  errorMessage: z.string().nullable(),
  clientTtftMs: msSchema.nullable(),
  /** Why the first token took as long as it did (page misses, a cold slot, who was ahead); absent in older exports. */
  diagnosis: DiagnosisSchema.nullable().optional(),
  /** Client send → last chunk received (the client's clock), when the client reported it. */
  clientE2eMs: msSchema.nullable().default(null),
  /**
   * Client send → arrival here (ms), known only when the client's stamps share this process's
   * clock (a trace on one aligned clock, the load lab's in-process client). Negative means a
   * broken measurement, never a fast network.
   */
  networkInMs: msSchema.nullable().default(null),
  /** Set when a remote engine served the request: the timeline's boundary is then the client's (see RemoteFactsSchema). */
  remote: RemoteFactsSchema.nullable().optional(),
});
export type Timeline = z.infer<typeof TimelineSchema>;

/** All-zero parts, the starting point of every derivation. */
export function zeroParts(): PartsMs {
  return Object.fromEntries(TTFT_PARTS.map((p) => [p, 0])) as PartsMs;
}

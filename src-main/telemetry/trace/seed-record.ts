import { z } from 'zod';
import { TRACE_LIMITS } from '../../limits';
import { ManualClock } from '../clock';
import { canonicalTimeline } from '../timeline/canonical';
import { deriveClientFigures } from '../timeline/derive';
import { TimelineRecorder } from '../timeline/recorder';
import type { Timeline } from '../timeline/schema';

/**
 * Seed 003's trace record: one request's stamps on one aligned clock (ms), in the order they
 * must come, each with the side that takes it; each gap becomes one of our parts (see
 * docs/telemetry.md, "Importing").
 */
const STAMP_SIDES = {
  client_send_ms: 'client',
  gateway_arrival_ms: 'server',
  queue_enter_ms: 'server',
  prefill_start_ms: 'server',
  prefill_end_ms: 'server',
  first_token_server_ms: 'server',
  first_token_client_ms: 'client',
  last_token_client_ms: 'client',
} as const;
/** One of seed 003's stamps. */
export type SeedStamp = keyof typeof STAMP_SIDES;
/** Seed 003's stamps in the order they must come. */
export const SEED_STAMPS = Object.keys(STAMP_SIDES) as SeedStamp[];

/** A positive whole token count no larger than `max` (limits.ts: wide enough for any engine's traces). */
const tokenCount = (max: number) =>
  z
    .number()
    .int('must be a whole number')
    .min(1, 'must be a positive token count')
    .max(max, `must be at most ${max.toLocaleString('en-US')} tokens`);
const stamp = z.number({ error: 'must be a finite number of ms' });

/** Every field of a seed 003 record; all are required. */
export const SeedRecordSchema = z.object({
  request_id: z
    .string()
    .min(1, 'must not be empty')
    .max(TRACE_LIMITS.maxIdChars, `must be at most ${TRACE_LIMITS.maxIdChars} characters`),
  prompt_tokens: tokenCount(TRACE_LIMITS.maxPromptTokens),
  output_tokens: tokenCount(TRACE_LIMITS.maxOutputTokens),
  ...(Object.fromEntries(SEED_STAMPS.map((s) => [s, stamp])) as Record<SeedStamp, typeof stamp>),
});
export type SeedRecord = z.infer<typeof SeedRecordSchema>;

/** The fields a seed record must have (for "missing field" reasons). */
export const SEED_FIELDS = Object.keys(SeedRecordSchema.shape);

/** The stamps the server takes, in the order they must come (one clock: a disorder is impossible). */
const SERVER_STAMPS = SEED_STAMPS.filter((s) => STAMP_SIDES[s] === 'server');
/** The stamps the client takes, in order (its own clock). */
const CLIENT_STAMPS = SEED_STAMPS.filter((s) => STAMP_SIDES[s] === 'client');

/**
 * The first out-of-order pair of stamps taken on one side (server or client), or a span longer
 * than a day (limits.ts), as a reason; null when the stamps can describe one request. A pair
 * that crosses sides (client send after gateway arrival, the client's first token before the
 * server's) is not rejected here: the report counts it as a broken measurement.
 */
export function seedOrderProblem(record: SeedRecord): string | null {
  for (const stamps of [SERVER_STAMPS, CLIENT_STAMPS])
    for (let i = 1; i < stamps.length; i++) {
      const before = stamps[i - 1]!;
      const after = stamps[i]!;
      if (record[after] < record[before])
        return `non-monotonic stamps: ${after} (${record[after]}) is before ${before} (${record[before]})`;
    }
  const spanMs = record.last_token_client_ms - record.client_send_ms;
  if (!(spanMs <= TRACE_LIMITS.maxSpanMs))
    return `the stamps span ${spanMs} ms from client_send_ms to last_token_client_ms; at most ${TRACE_LIMITS.maxSpanMs.toLocaleString('en-US')} ms (a day) is accepted`;
  return null;
}

/** Stands in for the wall clock: an imported record carries no wall anchor of its own. */
const importClock = new ManualClock(0, 0);

/**
 * Maps a validated seed record onto a Timeline (source `import`) through the recorder, so the
 * parts come from the same derivation as live requests: inbox = queue_enter − gateway_arrival
 * (seed 003's gateway), queue = prefill_start − queue_enter, prefill = prefill_end −
 * prefill_start, emit = first_token_server − prefill_end (its first_decode). Server TTFT
 * starts at gateway arrival. The client boundary keeps the record's own client stamps: client
 * TTFT = first_token_client − client_send, client E2E = last_token_client − client_send and
 * network_in = gateway_arrival − client_send (the record's stamps share one aligned clock).
 * The server-side stream (last − first client token) is spread evenly over output_tokens − 1
 * gaps because the record has no per-token times.
 */
export function seedToTimeline(record: SeedRecord, runId: string | null = null): Timeline {
  const recorder = new TimelineRecorder(
    importClock,
    { requestId: record.request_id, runId, numPromptTokens: record.prompt_tokens },
    record.gateway_arrival_ms,
  );
  recorder.enter('queue', record.queue_enter_ms);
  recorder.enter('prefill', record.prefill_start_ms);
  recorder.enter('emit', record.prefill_end_ms);
  const firstTokenAt = record.first_token_server_ms;
  recorder.tokensFlushed(1, firstTokenAt);
  // Durations cross clocks, instants never: the server-side stream is the client's duration.
  const streamMs = record.last_token_client_ms - record.first_token_client_ms;
  const numGaps = record.output_tokens - 1;
  for (let k = 1; k <= numGaps; k++) recorder.tokensFlushed(1, firstTokenAt + (streamMs * k) / numGaps);
  const timeline = recorder.finish('stop', firstTokenAt + streamMs);
  return canonicalTimeline({
    ...timeline,
    source: 'import',
    wallStartMs: record.gateway_arrival_ms,
    ...deriveClientFigures(
      {
        sentAt: record.client_send_ms,
        firstContentAt: record.first_token_client_ms,
        lastContentAt: record.last_token_client_ms,
      },
      record.gateway_arrival_ms,
    ),
  });
}

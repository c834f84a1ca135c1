import { SEED_SERVER_PHASES } from '../../telemetry/report/seed-phases';
import type { SeedServerPhase } from '../../telemetry/report/seed-phases';
import { deriveServerSpanMs } from '../../telemetry/timeline/derive';
import type { TtftPart } from '../../telemetry/timeline/parts';
import type { Timeline } from '../../telemetry/timeline/schema';
import type { SeedRecord } from '../../telemetry/trace/seed-record';
import { SeedRecordSchema, SEED_STAMPS } from '../../telemetry/trace/seed-record';

/** Our parts inside each of seed 003's server phases (the report's grouping). */
export type PhaseParts = Readonly<Record<SeedServerPhase, readonly TtftPart[]>>;

/** A record, or why a request was left out of the file. */
export type PlacedRecord = { record: SeedRecord } | { leftOut: string };

/**
 * Seed 003's record of a remote request: the client's stamps as taken, and the server's placed
 * on the client's clock at the placed arrival, each phase as long as the parts the server
 * reported inside it. A phase the server does not report is collapsed to zero width (the
 * sidecar says which); time the server reports only as a total (First Frame's unattributed)
 * rides in first_decode. Left out, with the reason: no first token, no normal finish, no token counts, stamps
 * that cannot be placed in order, or a record seed 003's validation refuses.
 */
export function placedSeedRecord(t: Timeline, groups: PhaseParts): PlacedRecord {
  const facts = t.remote;
  if (!facts) return { leftOut: 'not a remote request' };
  if (t.firstTokenAt === null) return { leftOut: `no content arrived (${t.finishReason})` };
  // A record is a finished request: one cut short has no last token to stamp.
  if (t.finishReason !== 'stop' && t.finishReason !== 'length')
    return { leftOut: `did not finish (${t.finishReason}${t.errorMessage ? `: ${t.errorMessage}` : ''})` };
  if (facts.placementProblem) return { leftOut: facts.placementProblem };
  if (facts.placedArrivalMs === null) return { leftOut: 'the server stamps were not placed' };
  if (t.numPromptTokens < 1 || t.numOutputTokens < 1)
    return { leftOut: 'no token counts (the server sent no usage)' };
  const arrival = t.arrivedAt + facts.placedArrivalMs;
  const sum = (phase: SeedServerPhase) => groups[phase].reduce((s, p) => s + t.parts[p], 0);
  const queueEnter = arrival + sum('gateway');
  const prefillStart = queueEnter + sum('queue');
  const prefillEnd = prefillStart + sum('prefill');
  const reported = Object.fromEntries(facts.reportedParts.map((p) => [p, t.parts[p]]));
  const firstTokenServer = arrival + deriveServerSpanMs({ parts: reported, ttftMs: facts.serverTtftMs });
  const candidate = {
    request_id: t.requestId,
    prompt_tokens: t.numPromptTokens,
    output_tokens: t.numOutputTokens,
    client_send_ms: t.arrivedAt,
    gateway_arrival_ms: arrival,
    queue_enter_ms: queueEnter,
    prefill_start_ms: prefillStart,
    prefill_end_ms: prefillEnd,
    first_token_server_ms: firstTokenServer,
    first_token_client_ms: t.firstTokenAt,
    last_token_client_ms: t.firstTokenAt + t.itlMs.reduce((s, g) => s + g, 0),
  };
  const parsed = SeedRecordSchema.safeParse(candidate);
  if (!parsed.success) return { leftOut: `not a valid seed 003 record: ${parsed.error.issues[0]?.message}` };
  const disorder = firstDisorder(parsed.data);
  return disorder ? { leftOut: disorder } : { record: parsed.data };
}

/**
 * Seed 003's own check, all eight stamps in one order (its profiler refuses anything else):
 * the first pair out of order, or null.
 */
export function firstDisorder(record: SeedRecord): string | null {
  for (let i = 1; i < SEED_STAMPS.length; i++) {
    const before = SEED_STAMPS[i - 1]!;
    const after = SEED_STAMPS[i]!;
    if (record[after] < record[before])
      return `non-monotonic after placement: ${after} is ${(record[before] - record[after]).toFixed(6)} ms before ${before}`;
  }
  return null;
}

/** The seed phases a report source leaves without stamps of its own (collapsed to zero width). */
export function collapsedPhases(reportedParts: readonly TtftPart[], groups: PhaseParts): SeedServerPhase[] {
  return SEED_SERVER_PHASES.filter((phase) => !groups[phase].some((p) => reportedParts.includes(p)));
}

import type { SeedPhase } from '../../../../src-main/telemetry/report/seed-phases';
import type { SeedRecord } from '../../../../src-main/telemetry/trace/seed-record';

/**
 * Each seed 003 phase of the base request (ms): TTFT phases sum to 80 ms; 5 output tokens
 * stream in 40 ms (ITL 10 ms).
 */
export const BASE_PHASES_MS: Readonly<Record<SeedPhase, number>> = {
  network_in: 10,
  gateway: 5,
  queue: 20,
  prefill: 30,
  first_decode: 5,
  network_to_first: 10,
  stream: 40,
};

/** A seed 003 record (prompt 100 tokens, 5 output tokens) with these phase durations from t0. */
export function seedRecord(id: string, t0: number, phases: Record<SeedPhase, number>): SeedRecord {
  const gateway = t0 + phases.network_in;
  const queued = gateway + phases.gateway;
  const prefillStart = queued + phases.queue;
  const prefillEnd = prefillStart + phases.prefill;
  const firstServer = prefillEnd + phases.first_decode;
  const firstClient = firstServer + phases.network_to_first;
  return {
    request_id: id,
    prompt_tokens: 100,
    output_tokens: 5,
    client_send_ms: t0,
    gateway_arrival_ms: gateway,
    queue_enter_ms: queued,
    prefill_start_ms: prefillStart,
    prefill_end_ms: prefillEnd,
    first_token_server_ms: firstServer,
    first_token_client_ms: firstClient,
    last_token_client_ms: firstClient + phases.stream,
  };
}

/**
 * Four requests a second apart where `phase` is 400, 420, 440 and 460 ms longer than the base
 * (so its mean is the base + 430 ms) and every other phase holds still.
 */
export function traceWhereDominates(phase: SeedPhase): SeedRecord[] {
  return [0, 1, 2, 3].map((i) =>
    seedRecord(`${phase}-${i + 1}`, 1_000 * (i + 1), {
      ...BASE_PHASES_MS,
      [phase]: BASE_PHASES_MS[phase] + 400 + 20 * i,
    }),
  );
}

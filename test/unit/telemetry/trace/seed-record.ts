import type { SeedRecord } from '../../../../src-main/telemetry/trace/seed-record';

/** One well-formed seed-003 record (unit-test fixture): a 700-token prompt, 5 tokens out, a fresh object each call. */
export const seedRecord = (requestId = 'h1'): SeedRecord => ({
  request_id: requestId,
  prompt_tokens: 700,
  output_tokens: 5,
  client_send_ms: 1_000,
  gateway_arrival_ms: 1_015,
  queue_enter_ms: 1_020,
  prefill_start_ms: 1_040,
  prefill_end_ms: 1_110,
  first_token_server_ms: 1_120,
  first_token_client_ms: 1_140,
  last_token_client_ms: 1_240,
});

/**
 * One line of the simplest trace the importer takes: seed 003's record, one request's stamps
 * in ms on one aligned clock (any origin), in the order they happen. The Traces view and
 * docs/telemetry.md show it; a test imports it, so the example always imports clean.
 * Zod-free, so the renderer may import it.
 */
export const TRACE_EXAMPLE_RECORD = {
  request_id: 'req-0001',
  prompt_tokens: 120,
  output_tokens: 40,
  client_send_ms: 0,
  gateway_arrival_ms: 1.2,
  queue_enter_ms: 1.6,
  prefill_start_ms: 3.1,
  prefill_end_ms: 48.4,
  first_token_server_ms: 49.5,
  first_token_client_ms: 51.0,
  last_token_client_ms: 912.8,
} as const;

/** TRACE_EXAMPLE_RECORD as the line a JSONL file holds. */
export const TRACE_EXAMPLE_LINE = JSON.stringify(TRACE_EXAMPLE_RECORD);

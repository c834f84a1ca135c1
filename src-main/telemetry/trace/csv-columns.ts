import { ownItlP95Ms } from '../report/columns';
import type { Timeline } from '../timeline/schema';
import { transportMs } from '../timeline/derive';
import { TTFT_PARTS } from '../timeline/schema';
import { PART_COLUMN_NAMES } from './column-names';

/** One CSV column: its header, unit and how a timeline fills it (null → empty cell). */
export interface CsvColumn {
  name: string;
  unit: string;
  value: (t: Timeline) => string | number | null;
}

/** ms values are written to 0.001 ms (1 µs), the tolerance the timeline invariants use. */
const ms = (value: number | null): number | null => (value === null ? null : Math.round(value * 1000) / 1000);

function itlMean(t: Timeline): number | null {
  if (t.itlMs.length === 0) return null;
  let sum = 0;
  for (const gap of t.itlMs) sum += gap;
  return sum / t.itlMs.length;
}

function itlMax(t: Timeline): number | null {
  if (t.itlMs.length === 0) return null;
  let max = -Infinity;
  for (const gap of t.itlMs) if (gap > max) max = gap;
  return max;
}

/**
 * Every CSV column, in order: one row per request. docs/csv-columns.md documents each one and
 * maps it to vLLM, guidellm and Ollama field names; a test keeps the two in step.
 */
export const CSV_COLUMNS: readonly CsvColumn[] = [
  { name: 'request_id', unit: 'id', value: (t) => t.requestId },
  { name: 'run_id', unit: 'id', value: (t) => t.runId },
  { name: 'conversation_id', unit: 'id', value: (t) => t.conversationId },
  { name: 'source', unit: 'runtime|import', value: (t) => t.source },
  { name: 'model_id', unit: 'id', value: (t) => t.modelId },
  { name: 'model_revision', unit: 'content hash', value: (t) => t.modelRevision },
  { name: 'slot_id', unit: 'id', value: (t) => t.slotId },
  { name: 'is_cold_slot', unit: '0|1', value: (t) => (t.isColdSlot ? 1 : 0) },
  { name: 'wall_start_ms', unit: 'wall-clock epoch ms', value: (t) => ms(t.wallStartMs) },
  { name: 'arrived_at_ms', unit: 'monotonic ms (this process)', value: (t) => ms(t.arrivedAt) },
  { name: 'first_token_at_ms', unit: 'monotonic ms (this process)', value: (t) => ms(t.firstTokenAt) },
  { name: 'finished_at_ms', unit: 'monotonic ms (this process)', value: (t) => ms(t.finishedAt) },
  { name: 'ttft_ms', unit: 'ms (server)', value: (t) => ms(t.ttftMs) },
  { name: 'client_ttft_ms', unit: 'ms (client clock)', value: (t) => ms(t.clientTtftMs) },
  { name: 'transport_ms', unit: 'ms', value: (t) => ms(transportMs(t.clientTtftMs, t.ttftMs)) },
  { name: 'e2e_ms', unit: 'ms (server)', value: (t) => ms(t.e2eMs) },
  { name: 'decode_ms', unit: 'ms', value: (t) => (t.ttftMs === null ? null : ms(t.e2eMs - t.ttftMs)) },
  ...TTFT_PARTS.map((part) => ({
    name: PART_COLUMN_NAMES[part],
    unit: 'ms',
    value: (t: Timeline) => ms(t.parts[part]),
  })),
  { name: 'unattributed_ms', unit: 'ms', value: (t) => ms(t.unattributedMs) },
  { name: 'num_prompt_tokens', unit: 'tokens', value: (t) => t.numPromptTokens },
  { name: 'num_cached_tokens', unit: 'tokens', value: (t) => t.numCachedTokens },
  { name: 'num_output_tokens', unit: 'tokens', value: (t) => t.numOutputTokens },
  { name: 'num_itl_gaps', unit: 'count', value: (t) => t.itlMs.length },
  { name: 'itl_mean_ms', unit: 'ms', value: (t) => ms(itlMean(t)) },
  {
    name: 'itl_p95_ms',
    unit: 'ms (nearest rank, own gaps)',
    value: (t) => (t.itlMs.length === 0 ? null : ms(ownItlP95Ms(t.itlMs))),
  },
  { name: 'itl_max_ms', unit: 'ms', value: (t) => ms(itlMax(t)) },
  { name: 'num_preemptions', unit: 'count', value: (t) => t.numPreemptions },
  {
    name: 'finish_reason',
    unit: 'stop|length|cancelled|deadline|rejected|error',
    value: (t) => t.finishReason,
  },
  { name: 'error_message', unit: 'text', value: (t) => t.errorMessage },
];

/** The CSV header row. */
export const CSV_HEADER: readonly string[] = CSV_COLUMNS.map((c) => c.name);

/** One timeline as a CSV record, in CSV_COLUMNS order. */
export function toCsvRecord(t: Timeline): (string | number | null)[] {
  return CSV_COLUMNS.map((c) => c.value(t));
}

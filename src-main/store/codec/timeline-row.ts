import type { Diagnosis, Timeline, Transition, TtftPart } from '../../telemetry/timeline';
import { TTFT_PARTS, transportMs } from '../../telemetry/timeline';
import { PART_COLUMN_NAMES } from '../../telemetry/trace';
import { packTimeline, unpackGaps } from './packed';

/** Every `requests` column written for a timeline, in insert order. */
export const REQUEST_COLUMNS = [
  'request_id',
  'run_id',
  'conversation_id',
  'source',
  'model_id',
  'model_revision',
  'slot_id',
  'is_cold_slot',
  'wall_start_ms',
  'arrived_at_ms',
  'first_token_at_ms',
  'finished_at_ms',
  ...TTFT_PARTS.map((p) => PART_COLUMN_NAMES[p]),
  'unattributed_ms',
  'ttft_ms',
  'e2e_ms',
  'client_ttft_ms',
  'transport_ms',
  'num_prompt_tokens',
  'num_cached_tokens',
  'num_output_tokens',
  'num_preemptions',
  'finish_reason',
  'error_message',
  'transitions_json',
  'diagnosis_json',
  'num_itl_gaps',
  'itl_gaps_f64',
  'report_f64',
] as const;

/** A `requests` row as better-sqlite3 returns it. */
export type RequestRow = Record<(typeof REQUEST_COLUMNS)[number], unknown>;

/** Positional insert parameters for one timeline, in REQUEST_COLUMNS order. */
export function toRequestParams(t: Timeline): unknown[] {
  const packed = packTimeline(t);
  // Filled by index: this runs once per stored request, on the main thread.
  const params: unknown[] = new Array(REQUEST_COLUMNS.length);
  let i = 0;
  params[i++] = t.requestId;
  params[i++] = t.runId;
  params[i++] = t.conversationId;
  params[i++] = t.source;
  params[i++] = t.modelId;
  params[i++] = t.modelRevision;
  params[i++] = t.slotId;
  params[i++] = t.isColdSlot ? 1 : 0;
  params[i++] = t.wallStartMs;
  params[i++] = t.arrivedAt;
  params[i++] = t.firstTokenAt;
  params[i++] = t.finishedAt;
  for (const part of TTFT_PARTS) params[i++] = t.parts[part];
  params[i++] = t.unattributedMs;
  params[i++] = t.ttftMs;
  params[i++] = t.e2eMs;
  params[i++] = t.clientTtftMs;
  params[i++] = transportMs(t.clientTtftMs, t.ttftMs);
  params[i++] = t.numPromptTokens;
  params[i++] = t.numCachedTokens;
  params[i++] = t.numOutputTokens;
  params[i++] = t.numPreemptions;
  params[i++] = t.finishReason;
  params[i++] = t.errorMessage;
  params[i++] = JSON.stringify(t.transitions);
  params[i++] = t.diagnosis ? JSON.stringify(t.diagnosis) : null;
  params[i++] = t.itlMs.length;
  params[i++] = packed.gaps;
  params[i] = packed.scalars;
  return params;
}

/** The timeline a stored row holds (the inverse of toRequestParams). */
export function fromRequestRow(row: RequestRow): Timeline {
  const parts = {} as Record<TtftPart, number>;
  for (const p of TTFT_PARTS) parts[p] = row[PART_COLUMN_NAMES[p] as keyof RequestRow] as number;
  return {
    requestId: row.request_id as string,
    source: row.source as Timeline['source'],
    runId: row.run_id as string | null,
    conversationId: row.conversation_id as string | null,
    modelId: row.model_id as string,
    modelRevision: row.model_revision as string,
    slotId: row.slot_id as string | null,
    isColdSlot: row.is_cold_slot === 1,
    wallStartMs: row.wall_start_ms as number,
    arrivedAt: row.arrived_at_ms as number,
    firstTokenAt: row.first_token_at_ms as number | null,
    finishedAt: row.finished_at_ms as number,
    transitions: JSON.parse(row.transitions_json as string) as Transition[],
    parts,
    unattributedMs: row.unattributed_ms as number,
    ttftMs: row.ttft_ms as number | null,
    e2eMs: row.e2e_ms as number,
    itlMs: unpackGaps(row.itl_gaps_f64 as Buffer),
    numPromptTokens: row.num_prompt_tokens as number,
    numCachedTokens: row.num_cached_tokens as number,
    numOutputTokens: row.num_output_tokens as number,
    numPreemptions: row.num_preemptions as number,
    finishReason: row.finish_reason as Timeline['finishReason'],
    errorMessage: row.error_message as string | null,
    clientTtftMs: row.client_ttft_ms as number | null,
    diagnosis: row.diagnosis_json === null ? null : (JSON.parse(row.diagnosis_json as string) as Diagnosis),
  };
}

/** `SELECT` list reading back every column fromRequestRow needs. */
export const REQUEST_SELECT = REQUEST_COLUMNS.filter((c) => c !== 'report_f64').join(', ');

/** `INSERT` statement for one timeline with toRequestParams' parameters. */
export const INSERT_REQUEST_SQL = `INSERT INTO requests (${REQUEST_COLUMNS.join(', ')}) VALUES (${REQUEST_COLUMNS.map(() => '?').join(', ')})`;

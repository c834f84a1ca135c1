import { nearestRankOf } from '../report/nearest-rank';
import { transportMs } from './derive';
import type { Timeline, TtftPart } from './schema';
import { FINISH_REASONS, TTFT_PARTS } from './schema';

/** Where a column goes: stored in `requests`, exported in CSV, or both. */
export type ColumnUse = 'stored' | 'exported' | 'both';

/**
 * One flat column of a timeline: its name (snake_case with its unit, the same in SQL and CSV),
 * the unit a reader needs, and how a timeline fills it. `field` names the timeline field it
 * holds (read back from a stored row); a column without one is derived from other fields.
 */
export interface TimelineColumn {
  name: string;
  unit: string;
  use: ColumnUse;
  field: keyof Timeline | { part: TtftPart } | null;
  /** The value for a timeline; null is unknown (an empty CSV cell, SQL NULL). */
  value(t: Timeline): string | number | null;
  /** A stored value back into the field's type (absent: as stored). */
  fromStored?: (raw: unknown) => unknown;
}

/** A TTFT part's column name: the part in snake_case with its unit (`slotLoad` → `slot_load_ms`). */
export function partColumn(part: TtftPart): string {
  return `${part.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}_ms`;
}

/** Each TTFT part's column name, derived from TTFT_PARTS. */
export const PART_COLUMN_NAMES = Object.fromEntries(TTFT_PARTS.map((p) => [p, partColumn(p)])) as Readonly<
  Record<TtftPart, string>
>;

const own = <K extends keyof Timeline>(
  name: string,
  unit: string,
  field: K,
  use: ColumnUse = 'both',
): TimelineColumn => ({ name, unit, use, field, value: (t) => t[field] as string | number | null });

const derived = (
  name: string,
  unit: string,
  use: ColumnUse,
  value: TimelineColumn['value'],
): TimelineColumn => ({ name, unit, use, field: null, value });

const MONOTONIC = 'monotonic ms (this process)';
const mean = (gaps: readonly number[]) =>
  gaps.length === 0 ? null : gaps.reduce((sum, gap) => sum + gap, 0) / gaps.length;

/**
 * Every flat column of a timeline, in the order a reader meets them: the one declaration the
 * CSV export, the stored `requests` row and docs/csv-columns.md follow. (Transitions, the
 * diagnosis and the inter-token gaps are not flat: the store keeps them as JSON and a blob.)
 */
export const TIMELINE_COLUMNS: readonly TimelineColumn[] = [
  own('request_id', 'id', 'requestId'),
  own('run_id', 'id', 'runId'),
  own('conversation_id', 'id', 'conversationId'),
  own('source', 'runtime|import', 'source'),
  own('model_id', 'id', 'modelId'),
  own('model_revision', 'content hash', 'modelRevision'),
  own('slot_id', 'id', 'slotId'),
  {
    ...own('is_cold_slot', '0|1', 'isColdSlot'),
    value: (t) => (t.isColdSlot ? 1 : 0),
    fromStored: (raw) => raw === 1,
  },
  own('wall_start_ms', 'wall-clock epoch ms', 'wallStartMs'),
  own('arrived_at_ms', MONOTONIC, 'arrivedAt'),
  own('first_token_at_ms', MONOTONIC, 'firstTokenAt'),
  own('finished_at_ms', MONOTONIC, 'finishedAt'),
  own('ttft_ms', 'ms (server)', 'ttftMs'),
  own('client_ttft_ms', 'ms (client clock)', 'clientTtftMs'),
  derived('transport_ms', 'ms', 'both', (t) => transportMs(t.clientTtftMs, t.ttftMs)),
  own('client_e2e_ms', 'ms (client clock)', 'clientE2eMs'),
  own('network_in_ms', 'ms (aligned clocks only)', 'networkInMs'),
  own('e2e_ms', 'ms (server)', 'e2eMs'),
  derived('decode_ms', 'ms', 'exported', (t) => (t.ttftMs === null ? null : t.e2eMs - t.ttftMs)),
  ...TTFT_PARTS.map((part): TimelineColumn => ({
    name: partColumn(part),
    unit: 'ms',
    use: 'both',
    field: { part },
    value: (t) => t.parts[part],
  })),
  own('unattributed_ms', 'ms', 'unattributedMs'),
  // A share of queue_ms, not an eleventh part: the parts still sum to TTFT. 0 when nothing was
  // read from disk; unknown for a timeline without a diagnosis.
  derived('disk_read_ms', 'ms (inside queue_ms)', 'both', (t) =>
    t.diagnosis ? (t.diagnosis.diskRead?.readMs ?? 0) : null,
  ),
  own('num_prompt_tokens', 'tokens', 'numPromptTokens'),
  own('num_cached_tokens', 'tokens', 'numCachedTokens'),
  own('num_output_tokens', 'tokens', 'numOutputTokens'),
  derived('num_itl_gaps', 'count', 'both', (t) => t.itlMs.length),
  derived('itl_mean_ms', 'ms', 'exported', (t) => mean(t.itlMs)),
  derived('itl_p95_ms', 'ms (nearest rank, own gaps)', 'exported', (t) => nearestRankOf(t.itlMs, 0.95)),
  derived('itl_max_ms', 'ms', 'exported', (t) =>
    t.itlMs.length === 0 ? null : t.itlMs.reduce((max, gap) => (gap > max ? gap : max), -Infinity),
  ),
  own('num_preemptions', 'count', 'numPreemptions'),
  own('finish_reason', FINISH_REASONS.join('|'), 'finishReason'),
  own('error_message', 'text', 'errorMessage'),
];

/** The columns a stored `requests` row holds (besides transitions and gap blobs). */
export const STORED_COLUMNS = TIMELINE_COLUMNS.filter((c) => c.use !== 'exported');
/** The CSV columns, in order. */
export const EXPORTED_COLUMNS = TIMELINE_COLUMNS.filter((c) => c.use !== 'stored');

import type { Diagnosis } from '../../telemetry/timeline/diagnosis';
import type { TtftPart } from '../../telemetry/timeline/parts';
import type { RemoteFacts } from '../../telemetry/timeline/remote-facts';
import type { Timeline } from '../../telemetry/timeline/schema';
import { canonicalTimeline } from '../../telemetry/timeline/canonical';
import { STORED_COLUMNS } from '../../telemetry/timeline/columns';
import { selectColumn } from './client-figures';
import { packTimeline, PackScratch, unpackGaps, unpackTransitions } from './packed';
import type { PackedTimeline } from './packed';

/**
 * Every `requests` column written for a timeline: the stored columns of the timeline's one
 * column declaration (TIMELINE_COLUMNS), then what is not flat (the diagnosis and remote facts
 * as JSON; the transitions, the inter-token gaps and the packed report row as float64 blobs).
 */
export const REQUEST_COLUMNS: readonly string[] = [
  ...STORED_COLUMNS.map((c) => c.name),
  'transitions_f64',
  'diagnosis_json',
  'remote_json',
  'itl_gaps_f64',
  'report_f64',
];

/** A `requests` row as better-sqlite3 returns it. */
export type RequestRow = Record<string, unknown>;

/** Positional insert parameters for one timeline, in REQUEST_COLUMNS order (a fresh array and blobs). */
export function toRequestParams(t: Timeline): unknown[] {
  return fillParams(t, new Array(REQUEST_COLUMNS.length), packTimeline(t));
}

/**
 * Encodes timelines for an insert that binds them at once (the history writer): one parameter
 * array and one blob scratch are reused, so a row allocates only its JSON strings and views. What
 * `encode` returns is overwritten by the next call; better-sqlite3 copies text and blobs
 * when it binds them, so a row bound before the next encode is safe.
 */
export class RequestParamsEncoder {
  private readonly params: unknown[] = new Array(REQUEST_COLUMNS.length);
  private readonly scratch = new PackScratch();

  /** The row's parameters, valid until the next call. */
  encode(t: Timeline): readonly unknown[] {
    return fillParams(t, this.params, this.scratch.pack(t));
  }
}

function fillParams(t: Timeline, params: unknown[], packed: PackedTimeline): unknown[] {
  let i = 0;
  for (const column of STORED_COLUMNS) params[i++] = column.value(t);
  params[i++] = packed.transitions;
  params[i++] = t.diagnosis ? JSON.stringify(t.diagnosis) : null;
  params[i++] = t.remote ? JSON.stringify(t.remote) : null;
  params[i++] = packed.gaps;
  params[i] = packed.scalars;
  return params;
}

/**
 * Every field of a timeline, in schema order, as one fast object: reading a row fills a copy of
 * it, so rows read back share one hidden class (see canonicalTimeline) without naming each
 * field here again.
 */
const ROW_TEMPLATE = canonicalTimeline({} as Timeline);
const OWN_COLUMNS = STORED_COLUMNS.flatMap((c) =>
  typeof c.field === 'string' ? [{ name: c.name, field: c.field, fromStored: c.fromStored }] : [],
);
const PART_COLUMNS = STORED_COLUMNS.flatMap((c) =>
  c.field !== null && typeof c.field === 'object' ? [{ name: c.name, part: c.field.part }] : [],
);

/** The timeline a stored row holds (the inverse of toRequestParams). */
export function fromRequestRow(row: RequestRow): Timeline {
  const t: Record<string, unknown> = { ...ROW_TEMPLATE };
  for (const { name, field, fromStored } of OWN_COLUMNS)
    t[field] = fromStored ? fromStored(row[name]) : row[name];
  const parts = {} as Record<TtftPart, number>;
  for (const { name, part } of PART_COLUMNS) parts[part] = row[name] as number;
  t.parts = parts;
  t.transitions = unpackTransitions(row.transitions_f64 as Buffer);
  t.diagnosis = row.diagnosis_json === null ? null : (JSON.parse(row.diagnosis_json as string) as Diagnosis);
  t.remote = row.remote_json === null ? null : (JSON.parse(row.remote_json as string) as RemoteFacts);
  t.itlMs = unpackGaps(row.itl_gaps_f64 as Buffer);
  return t as Timeline;
}

/**
 * `SELECT` list reading back every column fromRequestRow needs, from TIMELINES_FROM (the row
 * joined with its client figures).
 */
export const REQUEST_SELECT = REQUEST_COLUMNS.filter((c) => c !== 'report_f64')
  .map(selectColumn)
  .join(', ');

/** `INSERT` statement for one timeline with toRequestParams' parameters. */
export const INSERT_REQUEST_SQL = `INSERT INTO requests (${REQUEST_COLUMNS.join(', ')}) VALUES (${REQUEST_COLUMNS.map(() => '?').join(', ')})`;

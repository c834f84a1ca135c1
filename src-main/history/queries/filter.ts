import type { FinishReason, Timeline } from '../../telemetry/timeline/schema';

/**
 * Which stored timelines a query, report or export covers. Absent fields do not filter;
 * `runId: null` means requests that belong to no run. Wall times are epoch ms of arrival.
 */
export interface TimelineFilter {
  runId?: string | null;
  fromWallMs?: number;
  toWallMs?: number;
  modelId?: string;
  source?: Timeline['source'];
  finishReasons?: readonly FinishReason[];
}

/** A WHERE clause (possibly empty) and its named parameters. */
export interface WhereClause {
  sql: string;
  params: Record<string, unknown>;
}

/** Filter fields that are one comparison against one column. */
const SIMPLE_TERMS = [
  ['fromWallMs', 'wall_start_ms >='],
  ['toWallMs', 'wall_start_ms <'],
  ['modelId', 'model_id ='],
  ['source', 'source ='],
] as const satisfies readonly (readonly [keyof TimelineFilter, string])[];

/** The filter as SQL over `requests`, parameters bound by name (never spliced into the text). */
export function whereOf(filter: TimelineFilter): WhereClause {
  const terms: string[] = [];
  const params: Record<string, unknown> = {};
  if (filter.runId === null) terms.push('run_id IS NULL');
  else if (filter.runId !== undefined) {
    terms.push('run_id = @runId');
    params.runId = filter.runId;
  }
  for (const [key, comparison] of SIMPLE_TERMS) {
    const value = filter[key];
    if (value === undefined) continue;
    terms.push(`${comparison} @${key}`);
    params[key] = value;
  }
  if (filter.finishReasons) {
    const names = filter.finishReasons.map((reason, i) => {
      params[`finish${i}`] = reason;
      return `@finish${i}`;
    });
    terms.push(names.length === 0 ? '0' : `finish_reason IN (${names.join(', ')})`);
  }
  return { sql: terms.length === 0 ? '' : `WHERE ${terms.join(' AND ')}`, params };
}

/** `clause` extended with one more term (for keyset paging). */
export function andWhere(clause: WhereClause, term: string): string {
  return clause.sql === '' ? `WHERE ${term}` : `${clause.sql} AND ${term}`;
}

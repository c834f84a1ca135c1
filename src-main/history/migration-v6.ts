import type Database from 'better-sqlite3';
import type { Transition } from '../telemetry/timeline/schema';
import { TransitionSchema } from '../telemetry/timeline/schema';
import { packTransitions } from './codec/transitions';
import type { StepReport } from './migrations';

/** Request ids named in the log line about rows that did not convert; the rest are counted. */
const NUM_NAMED_ROWS = 5;

const TRANSITIONS = TransitionSchema.array();

/**
 * Schema v6: a request's transitions move from JSON text (`transitions_json`) to float64 triples
 * (`transitions_f64`: state index, at, endAt or NaN; codec/transitions.ts), which the writer
 * fills in a fraction of the time JSON.stringify took. Existing rows are converted from their
 * JSON here, with the codec's layout (a later change to that layout needs a migration of its
 * own, and this one must then keep writing the v6 layout). A row whose JSON does not convert
 * (damaged text, not an array, an unknown state) keeps every other column and gets no
 * transitions: one such row must not make the whole history unreadable. They are counted and
 * named in the step's report. The old column is dropped rather than left unused: it is NOT NULL
 * without a default, so keeping it would make every insert bind a placeholder, and a second copy
 * of each row's transitions nobody reads would only mislead whoever opens the file; dropping it
 * rewrites the table once, here. The empty default exists only because SQLite adds a NOT NULL
 * column with one; the UPDATE fills every row before commit.
 */
export function v6(db: Database.Database): StepReport {
  let numConverted = 0;
  const failed: string[] = [];
  let numFailed = 0;
  const empty = Buffer.alloc(0);
  db.function('first_frame_transitions_f64', (json, requestId) => {
    try {
      const packed = packTransitions(transitionsFromJson(json));
      numConverted += 1;
      return packed;
    } catch (error) {
      numFailed += 1;
      if (failed.length < NUM_NAMED_ROWS)
        failed.push(`${String(requestId)} (${error instanceof Error ? error.message : String(error)})`);
      return empty;
    }
  });
  db.exec(`
ALTER TABLE requests ADD COLUMN transitions_f64 BLOB NOT NULL DEFAULT x'';
UPDATE requests SET transitions_f64 = first_frame_transitions_f64(transitions_json, request_id);
ALTER TABLE requests DROP COLUMN transitions_json;
`);
  const more = numFailed > failed.length ? `, and ${numFailed - failed.length} more` : '';
  return {
    summary: `${numConverted} request row(s) had their transitions converted to float64 triples`,
    problem:
      numFailed === 0
        ? null
        : `${numFailed} request row(s) had stored transitions that could not be read and now have ` +
          `none (every other column, the report row and the gaps are kept): ${failed.join('; ')}${more}`,
  };
}

/** A row's v5 transitions from their JSON text; throws with the reason when they are not valid. */
function transitionsFromJson(json: unknown): Transition[] {
  if (typeof json !== 'string') throw new Error(`the stored value is ${typeof json}, not text`);
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new Error(`not JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(value)) throw new Error(`JSON ${value === null ? 'null' : typeof value}, not an array`);
  const parsed = TRANSITIONS.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const [index, field] = issue.path;
  const item: unknown = typeof index === 'number' ? value[index] : undefined;
  if (field === 'state' && typeof item === 'object' && item !== null && 'state' in item)
    throw new Error(`transition ${String(index)} is into unknown state ${JSON.stringify(item.state)}`);
  throw new Error(
    `transition ${String(index)}${field === undefined ? '' : ` ${String(field)}`}: ${issue.message}`,
  );
}

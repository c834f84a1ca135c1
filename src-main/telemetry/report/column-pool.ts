import type { Timeline } from '../timeline/schema';
import type { ReportColumns, ScalarField } from './columns';
import { allocateColumns, countGaps, fillColumns, SCALAR_FIELDS } from './columns';

/** Storage grows to at least this many requests, so small windows do not reallocate often. */
const MIN_CAPACITY = 1_024;

let pool: ReportColumns | null = null;

/**
 * Columns for `timelines` in storage reused from the previous call: a dashboard refreshing its
 * report every second would otherwise allocate tens of MB of typed arrays each time, and that
 * external memory is what triggers full GCs of a heap holding every live timeline. The result
 * is valid until the next call (reports are synchronous, so buildReport is done with it by
 * then). The pool shrinks when it is four times larger than needed.
 */
export function pooledReportColumns(timelines: readonly Timeline[]): ReportColumns {
  const n = timelines.length;
  const numGaps = countGaps(timelines);
  if (!pool || !fits(pool.numRequests, n) || !fits(pool.itlGapsMs.length, numGaps)) {
    pool = allocateColumns(Math.max(MIN_CAPACITY, n * 2), Math.max(MIN_CAPACITY, numGaps * 2), []);
  }
  const values = {} as Record<ScalarField, Float64Array>;
  for (const f of SCALAR_FIELDS) values[f] = pool.values[f].subarray(0, n);
  const columns: ReportColumns = {
    numRequests: n,
    values,
    modelIds: timelines.map((t) => t.modelId),
    requestIds: timelines.map((t) => t.requestId),
    itlGapsMs: pool.itlGapsMs.subarray(0, numGaps),
  };
  fillColumns(timelines, columns);
  return columns;
}

function fits(capacity: number, needed: number): boolean {
  return capacity >= needed && (capacity <= MIN_CAPACITY || capacity <= needed * 4);
}

import type { z } from 'zod';
import { TRACE_LIMITS } from '../../limits';
import { canonicalTimeline } from '../timeline/canonical';
import { checkTimeline, TimelineBroken } from '../timeline/check';
import type { Timeline } from '../timeline/schema';
import { TimelineSchema } from '../timeline/schema';
import { SEED_FIELDS, SeedRecordSchema, seedOrderProblem, seedToTimeline } from './seed-record';

/** A trace line that cannot be imported: 1-based line number and why. */
export interface RejectedLine {
  line: number;
  reason: string;
}

/** An import stopped at a bad line (import without skipBadLines). */
export class TraceImportError extends Error {
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(`line ${line}: ${reason}`);
    this.name = 'TraceImportError';
  }
}

/** The outcome of one line: a timeline, or the reason it was rejected. */
export type LineResult = { timeline: Timeline } | { reason: string };

// Fields a line must carry; optional ones (added later, like `diagnosis`) may be absent in older exports.
const TIMELINE_FIELDS = Object.entries(TimelineSchema.shape)
  .filter(([, field]) => !field.safeParse(undefined).success)
  .map(([name]) => name);

/**
 * Parses one non-blank JSONL line: a seed 003 record (has `request_id`) or one of our exported
 * timelines (has `requestId`). Validates fields with zod, then stamp order (seed) or every
 * timeline invariant (ours). Never throws for bad input: it returns the reason.
 */
export function parseTraceLine(text: string, runId: string | null): LineResult {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { reason: `not JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { reason: 'not a JSON object' };
  if ('request_id' in raw) return parseSeed(raw, runId);
  if ('requestId' in raw) return parseTimeline(raw, runId);
  return {
    reason: 'neither a trace record (request_id, prompt_tokens, …) nor a First Frame timeline (requestId, …)',
  };
}

function parseSeed(raw: object, runId: string | null): LineResult {
  const missing = missingFields(raw, SEED_FIELDS);
  if (missing) return { reason: missing };
  const parsed = SeedRecordSchema.safeParse(raw);
  if (!parsed.success) return { reason: describeIssues(parsed.error) };
  const problem = seedOrderProblem(parsed.data);
  return problem ? { reason: problem } : { timeline: seedToTimeline(parsed.data, runId) };
}

function parseTimeline(raw: object, runId: string | null): LineResult {
  const missing = missingFields(raw, TIMELINE_FIELDS);
  if (missing) return { reason: missing };
  const parsed = TimelineSchema.safeParse(raw);
  if (!parsed.success) return { reason: describeIssues(parsed.error) };
  const outOfRange = timelineRangeProblem(parsed.data);
  if (outOfRange) return { reason: outOfRange };
  const timeline = canonicalTimeline(runId === null ? parsed.data : { ...parsed.data, runId });
  try {
    return { timeline: checkTimeline(timeline) };
  } catch (error) {
    if (error instanceof TimelineBroken) return { reason: `impossible timeline: ${error.reason}` };
    throw error;
  }
}

/** The first value of an exported timeline outside the import bounds (limits.ts), or null. */
function timelineRangeProblem(t: Timeline): string | null {
  const { maxPromptTokens, maxOutputTokens, maxSpanMs, maxIdChars } = TRACE_LIMITS;
  if (t.requestId.length > maxIdChars) return `requestId: must be at most ${maxIdChars} characters`;
  if (t.numPromptTokens > maxPromptTokens)
    return `numPromptTokens: must be at most ${maxPromptTokens.toLocaleString('en-US')} tokens`;
  if (t.numOutputTokens > maxOutputTokens || t.itlMs.length > maxOutputTokens)
    return `numOutputTokens: must be at most ${maxOutputTokens.toLocaleString('en-US')} tokens`;
  if (!(t.e2eMs <= maxSpanMs) || !(t.finishedAt - t.arrivedAt <= maxSpanMs))
    return `e2eMs: the request spans more than ${maxSpanMs.toLocaleString('en-US')} ms (a day)`;
  return null;
}

/** "missing field(s): …" naming every absent field, or null when all are there. */
function missingFields(raw: object, fields: readonly string[]): string | null {
  const missing = fields.filter((field) => !(field in raw));
  if (missing.length === 0) return null;
  return `missing field${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`;
}

/** The first zod issue as `field: message` (one reason per line keeps reports readable). */
function describeIssues(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid record';
  const field = issue.path.join('.') || '(record)';
  const more = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more)` : '';
  return `${field}: ${issue.message}${more}`;
}

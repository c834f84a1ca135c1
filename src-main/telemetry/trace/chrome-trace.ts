import type { Writable } from 'node:stream';
import type { Timeline } from '../timeline/schema';
import type { StreamOutOptions, TimelineSource } from './stream-out';
import { mapTimelines, streamOut } from './stream-out';

/** One Chrome trace event (the subset we emit: complete 'X' spans and 'M' metadata). */
export interface TraceEvent {
  name: string;
  ph: 'X' | 'M';
  pid: number;
  tid: number;
  cat?: string;
  ts?: number;
  dur?: number;
  args?: Record<string, unknown>;
}

const PID = 1;
const ATTEMPT_STATES = new Set(['activation', 'contextLookup', 'prefill', 'emit']);
const PROCESS_NAME: TraceEvent = {
  name: 'process_name',
  ph: 'M',
  pid: PID,
  tid: 0,
  args: { name: 'First Frame requests' },
};
/** Trace timestamps are µs; our instants are ms. */
const US_PER_MS = 1000;

/**
 * The events of one request on its own track `tid`: a `request` span over its whole life and,
 * nested inside, one span per state it passed through (an attempt thrown away by a preemption
 * is named `<state> (lost)`, category lostPrefill). Instants are the process's monotonic µs.
 */
export function requestEvents(t: Timeline, tid: number): TraceEvent[] {
  const events: TraceEvent[] = [
    { name: 'thread_name', ph: 'M', pid: PID, tid, args: { name: t.requestId } },
    { name: 'thread_sort_index', ph: 'M', pid: PID, tid, args: { sort_index: tid } },
    span('request', 'request', t.arrivedAt, t.finishedAt, tid, {
      requestId: t.requestId,
      modelId: t.modelId,
      finishReason: t.finishReason,
      ttftMs: t.ttftMs,
      e2eMs: t.e2eMs,
      unattributedMs: t.unattributedMs,
      numPromptTokens: t.numPromptTokens,
      numCachedTokens: t.numCachedTokens,
      numOutputTokens: t.numOutputTokens,
    }),
  ];
  const lastRequeue = lastRequeueBeforeFirstToken(t);
  t.transitions.forEach(({ state, at }, i) => {
    const endAt = t.transitions[i + 1]?.at ?? t.finishedAt;
    const isLost = i < lastRequeue && ATTEMPT_STATES.has(state);
    const cat = isLost ? 'lostPrefill' : state === 'decode' ? 'decode' : 'ttft';
    events.push(span(isLost ? `${state} (lost)` : state, cat, at, endAt, tid));
  });
  return events;
}

function lastRequeueBeforeFirstToken(t: Timeline): number {
  const endAt = t.firstTokenAt ?? t.finishedAt;
  let last = -1;
  t.transitions.forEach(({ state, at }, i) => {
    if (state === 'requeue' && at < endAt) last = i;
  });
  return last;
}

function span(
  name: string,
  cat: string,
  startAt: number,
  endAt: number,
  tid: number,
  args?: Record<string, unknown>,
): TraceEvent {
  const event: TraceEvent = {
    name,
    cat,
    ph: 'X',
    pid: PID,
    tid,
    ts: startAt * US_PER_MS,
    dur: Math.max(0, endAt - startAt) * US_PER_MS,
  };
  if (args) event.args = args;
  return event;
}

/**
 * Streams a Chrome trace-event JSON object (`{"traceEvents":[…]}`) that Perfetto and
 * chrome://tracing open: one track per request. Resolves to the number of requests.
 */
export async function writeChromeTrace(
  source: TimelineSource,
  out: Writable,
  options: StreamOutOptions = {},
): Promise<number> {
  const events = mapTimelines(source, (t, i) =>
    requestEvents(t, i + 1).map((e) => `,\n${JSON.stringify(e)}`),
  );
  async function* chunks() {
    yield `{"displayTimeUnit":"ms","traceEvents":[\n${JSON.stringify(PROCESS_NAME)}`;
    yield* events.chunks;
    yield '\n]}\n';
  }
  await streamOut(chunks(), out, options);
  return events.count();
}

import type { Writable } from 'node:stream';
import { transportMs } from '../timeline/derive';
import { ATTEMPT_STATES } from '../timeline/schema';
import type { LifeState, Timeline } from '../timeline/schema';
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

/** The server's process (its monotonic clock) and the clients' (their own clocks). */
const SERVER_PID = 1;
const CLIENT_PID = 2;
/** Trace timestamps are µs; our instants are ms. */
const US_PER_MS = 1000;

/**
 * An instant as whole µs. Every instant is rounded the same way and every `dur` is a difference
 * of rounded instants, so a state span ends exactly where its request span ends: viewers drop
 * spans that stick out of their parent by even a nanosecond of float error.
 */
function toUs(at: number): number {
  return Math.round(at * US_PER_MS);
}

function processEvents(pid: number, name: string): TraceEvent[] {
  return [
    { name: 'process_name', ph: 'M', pid, tid: 0, args: { name } },
    { name: 'process_sort_index', ph: 'M', pid, tid: 0, args: { sort_index: pid } },
  ];
}

function threadEvents(pid: number, tid: number, name: string): TraceEvent[] {
  return [
    { name: 'thread_name', ph: 'M', pid, tid, args: { name } },
    { name: 'thread_sort_index', ph: 'M', pid, tid, args: { sort_index: tid } },
  ];
}

/**
 * The events of one request on its own track `tid`: a `request` span over its whole life and,
 * nested inside, one span per state it passed through (an attempt thrown away by a preemption
 * is named `<state> (lost)`, category lostPrefill). Instants are the process's monotonic µs.
 */
export function requestEvents(t: Timeline, tid: number): TraceEvent[] {
  const events: TraceEvent[] = [
    ...threadEvents(SERVER_PID, tid, t.requestId),
    span(SERVER_PID, 'request', 'request', t.arrivedAt, t.finishedAt, tid, {
      requestId: t.requestId,
      modelId: t.modelId,
      finishReason: t.finishReason,
      ttftMs: t.ttftMs,
      e2eMs: t.e2eMs,
      unattributedMs: t.unattributedMs,
      numPromptTokens: t.numPromptTokens,
      numCachedTokens: t.numCachedTokens,
      numOutputTokens: t.numOutputTokens,
      numPreemptions: t.numPreemptions,
      ...(t.errorMessage === null ? {} : { errorMessage: t.errorMessage }),
    }),
  ];
  const lastRequeue = lastRequeueBeforeFirstToken(t);
  t.transitions.forEach(({ state, at }, i) => {
    const endAt = t.transitions[i + 1]?.at ?? t.finishedAt;
    const isLost = i < lastRequeue && (ATTEMPT_STATES as readonly LifeState[]).includes(state);
    const cat = isLost ? 'lostPrefill' : state === 'decode' ? 'decode' : 'ttft';
    events.push(span(SERVER_PID, isLost ? `${state} (lost)` : state, cat, at, endAt, tid));
  });
  return events;
}

/**
 * The client's side of one request, on track `tid` of the client process, when its client
 * reported a TTFT. The client stamps on its own clock, so only its duration is known: the span
 * is drawn from the server's arrival stamp, and its tail past the server's first token is the
 * transport (client TTFT − server TTFT). Empty when the request has no client figure.
 */
export function clientEvents(t: Timeline, tid: number): TraceEvent[] {
  if (t.clientTtftMs === null) return [];
  return [
    ...threadEvents(CLIENT_PID, tid, `${t.requestId} (client)`),
    span(CLIENT_PID, 'client TTFT', 'client', t.arrivedAt, t.arrivedAt + t.clientTtftMs, tid, {
      requestId: t.requestId,
      clientTtftMs: t.clientTtftMs,
      serverTtftMs: t.ttftMs,
      transportMs: transportMs(t.clientTtftMs, t.ttftMs),
      alignment:
        'drawn from the server arrival stamp: the client clock is separate, only its duration is measured',
    }),
  ];
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
  pid: number,
  name: string,
  cat: string,
  startAt: number,
  endAt: number,
  tid: number,
  args?: Record<string, unknown>,
): TraceEvent {
  const ts = toUs(startAt);
  const event: TraceEvent = { name, cat, ph: 'X', pid, tid, ts, dur: Math.max(0, toUs(endAt) - ts) };
  if (args) event.args = args;
  return event;
}

/**
 * Streams a Chrome trace-event JSON object (`{"traceEvents":[…]}`) that Perfetto and
 * chrome://tracing open: one track per request in the server process and, for requests whose
 * client reported a TTFT, one in the client process. Resolves to the number of requests.
 */
export async function writeChromeTrace(
  source: TimelineSource,
  out: Writable,
  options: StreamOutOptions = {},
): Promise<number> {
  let hasClientProcess = false;
  const events = mapTimelines(source, (t, i) => {
    const client = clientEvents(t, i + 1);
    const head = client.length > 0 && !hasClientProcess ? clientProcessEvents() : [];
    if (head.length > 0) hasClientProcess = true;
    return [...requestEvents(t, i + 1), ...head, ...client].map((e) => `,\n${JSON.stringify(e)}`);
  });
  async function* chunks() {
    const server = processEvents(SERVER_PID, 'First Frame requests (server clock)');
    yield `{"displayTimeUnit":"ms","traceEvents":[\n${server.map((e) => JSON.stringify(e)).join(',\n')}`;
    yield* events.chunks;
    yield '\n]}\n';
  }
  await streamOut(chunks(), out, options);
  return events.count();
}

function clientProcessEvents(): TraceEvent[] {
  return processEvents(CLIENT_PID, 'Clients (own clocks: durations only)');
}

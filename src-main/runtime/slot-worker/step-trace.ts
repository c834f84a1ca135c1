/**
 * Stamps of a step's way through both threads, for the step-profile bench only: off (one null
 * check per mark) unless a bench starts it. Each thread keeps its own marks and GC pauses on the
 * process-aligned clock (`performance.timeOrigin + performance.now()`); the bench collects the
 * worker's over a BroadcastChannel, so the job/reply protocol carries nothing extra.
 */
import { BroadcastChannel } from 'node:worker_threads';
import { PerformanceObserver } from 'node:perf_hooks';

/** Set to 1 in the environment before a runtime starts: its slot workers trace their steps. */
export const STEP_TRACE_ENV = 'FIRST_FRAME_STEP_TRACE';

const CHANNEL = 'first-frame-step-trace';

/**
 * The stamps, in the order one decode step meets them. Main thread: `jobPosted` (RunnerClient
 * posts a job), `replyReceived` (its reply's message event), `replyApplied` (tokens flushed,
 * the next iteration not yet run). Worker: `jobReceived` (message event), `replyBuilt` (the reply is
 * ready; the step ahead starts next), `replyPosted` (handed to postMessage), `replySent` (postMessage returned),
 * `runStarted`/`runEnded` (the onnxruntime-node `session.run` call), `sampled` (a row's token picked).
 */
export type StepMark =
  | 'jobPosted'
  | 'replyReceived'
  | 'replyApplied'
  | 'jobReceived'
  | 'replyBuilt'
  | 'replyPosted'
  | 'replySent'
  | 'runStarted'
  | 'runEnded'
  | 'sampled';

/** One thread's stamps (ms, process-aligned) and its GC pauses. */
export interface ThreadTrace {
  thread: 'main' | 'worker';
  marks: Array<{ name: StepMark; at: number }>;
  gcPauses: Array<{ startAt: number; durationMs: number }>;
}

const now = (): number => performance.timeOrigin + performance.now();

let active: ThreadTrace | null = null;

/** Stamps `name` now when this thread traces; nothing otherwise. */
export function markStep(name: StepMark): void {
  active?.marks.push({ name, at: now() });
}

/** Starts tracing this thread: its marks, its GC pauses and, in a worker, every session.run. */
export function startStepTrace(thread: ThreadTrace['thread']): void {
  if (active) return;
  const trace: ThreadTrace = { thread, marks: [], gcPauses: [] };
  active = trace;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      trace.gcPauses.push({ startAt: performance.timeOrigin + entry.startTime, durationMs: entry.duration });
  }).observe({ entryTypes: ['gc'] });
  if (thread === 'worker') {
    const channel = new BroadcastChannel(CHANNEL);
    channel.unref();
    channel.onmessage = (event) => {
      if ((event as MessageEvent).data !== 'collect') return;
      channel.postMessage(takeTrace());
    };
  }
}

/** This thread's trace so far, cleared. */
function takeTrace(): ThreadTrace {
  const trace = active!;
  return { thread: trace.thread, marks: trace.marks.splice(0), gcPauses: trace.gcPauses.splice(0) };
}

/**
 * The main thread's trace and every tracing worker's (the spare's too: empty) that answers
 * within `waitMs`, each cleared; call with the workers idle.
 */
export async function collectStepTraces(waitMs = 300): Promise<ThreadTrace[]> {
  const traces: ThreadTrace[] = active ? [takeTrace()] : [];
  const channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = (event) => traces.push((event as MessageEvent).data as ThreadTrace);
  channel.postMessage('collect');
  await new Promise((resolve) => setTimeout(resolve, waitMs));
  channel.close();
  return traces;
}

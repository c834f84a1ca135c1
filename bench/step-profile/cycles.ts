import type { StepMark, ThreadTrace } from '../../src-main/runtime/slot-worker/step-trace';

/**
 * One warm decode step as the worker's cycle sees it: from reply k built to reply k+1 built, the
 * step run ahead in between (ms; it starts before reply k is posted, so the post runs beside it). The five worker parts partition the cycle
 * exactly; the main thread's parts run beside them and reach the cycle only through `waitForJobMs`.
 */
export interface StepCycle {
  /** Worker: reply k built → session.run called (batch, ids, feeds of the step run ahead). */
  workerBeforeRunMs: number;
  /** Worker: postMessage of reply k, called → returned (it wakes the main thread; beside the run ahead). */
  postMessageMs: number;
  /** Worker: the onnxruntime-node session.run call, called → outputs arrived. */
  runMs: number;
  /** Worker: outputs arrived → the row's token sampled (logits, K/V advance, pages, sampling). */
  workerAfterRunMs: number;
  /** Worker: token sampled → job k+1's message event, when that came later (idle, waiting for the main thread); else 0. */
  waitForJobMs: number;
  /** Worker: token sampled or job k+1 received, whichever was later → reply k+1 built. */
  workerReplyMs: number;
  /** The whole cycle: reply k built → reply k+1 built. */
  cycleMs: number;
  /** Reply k handed to postMessage (worker) → its message event on the main thread. */
  hopToMainMs: number;
  /** Main: reply k's message event → its tokens flushed and the scheduler told. */
  mainApplyMs: number;
  /** Main: reply k applied → job k+1 posted (the loop plans and builds the next job). */
  mainPlanMs: number;
  /** Job k+1 posted → its message event in the worker; null when it waited out a native run (queued, not a hop). */
  hopToWorkerMs: number | null;
  /** GC pauses inside the cycle, each thread's summed. */
  mainGcMs: number;
  workerGcMs: number;
}

/** The instants of one mark, in order. */
function marksOf(trace: ThreadTrace, name: StepMark): number[] {
  return trace.marks.filter((m) => m.name === name).map((m) => m.at);
}

const gcWithin = (trace: ThreadTrace, fromAt: number, toAt: number): number =>
  trace.gcPauses
    .filter((gc) => gc.startAt >= fromAt && gc.startAt < toAt)
    .reduce((sum, gc) => sum + gc.durationMs, 0);

/** The first instant in `ats` within [fromAt, toAt), or null. */
const firstWithin = (ats: readonly number[], fromAt: number, toAt: number): number | null =>
  ats.find((at) => at >= fromAt && at < toAt) ?? null;

/**
 * The warm decode cycles of one request from both threads' traces (jobs pair up in order: one job
 * in flight per slot). A cycle counts only when exactly one session.run began in it, after reply
 * k (a step run ahead; the prefill's and the first decode's run inside their jobs and are left out).
 * Job k+1 usually arrives before the run ahead executes (onnxruntime-node defers the native run by
 * a setImmediate) and its reply waits for that run's token.
 */
export function stepCyclesOf(main: ThreadTrace, worker: ThreadTrace): StepCycle[] {
  const posted = marksOf(main, 'jobPosted');
  const received = marksOf(main, 'replyReceived');
  const applied = marksOf(main, 'replyApplied');
  const jobAt = marksOf(worker, 'jobReceived');
  const builtAt = marksOf(worker, 'replyBuilt');
  const replyAt = marksOf(worker, 'replyPosted');
  const sentAts = marksOf(worker, 'replySent');
  const runStarts = marksOf(worker, 'runStarted');
  const runEnds = marksOf(worker, 'runEnded');
  const sampledAts = marksOf(worker, 'sampled');
  const numJobs = Math.min(
    posted.length,
    received.length,
    applied.length,
    jobAt.length,
    builtAt.length,
    replyAt.length,
  );
  const cycles: StepCycle[] = [];
  for (let k = 0; k + 1 < numJobs; k++) {
    const startAt = builtAt[k]!;
    const endAt = builtAt[k + 1]!;
    const nextJobAt = jobAt[k + 1]!;
    const runsInside = runStarts.filter((at) => at >= startAt && at < endAt);
    if (runsInside.length !== 1 || nextJobAt < startAt) continue;
    const runStartAt = runsInside[0]!;
    const runEndAt = firstWithin(runEnds, runStartAt, endAt);
    const sampledAt = runEndAt === null ? null : firstWithin(sampledAts, runEndAt, endAt);
    if (runEndAt === null || sampledAt === null) continue;
    const jobPostedAt = posted[k + 1]!;
    // A hop only where the worker's event loop was free: a message event before runEnded came
    // before the native run (it blocks the thread), or the job was posted after the token.
    const isHop = nextJobAt < runEndAt || jobPostedAt >= sampledAt;
    cycles.push({
      workerBeforeRunMs: runStartAt - startAt,
      postMessageMs: (firstWithin(sentAts, replyAt[k]!, endAt) ?? Number.NaN) - replyAt[k]!,
      runMs: runEndAt - runStartAt,
      workerAfterRunMs: sampledAt - runEndAt,
      waitForJobMs: Math.max(0, nextJobAt - sampledAt),
      workerReplyMs: endAt - Math.max(sampledAt, nextJobAt),
      cycleMs: endAt - startAt,
      hopToMainMs: received[k]! - replyAt[k]!,
      mainApplyMs: applied[k]! - received[k]!,
      mainPlanMs: jobPostedAt - applied[k]!,
      hopToWorkerMs: isHop ? nextJobAt - jobPostedAt : null,
      mainGcMs: gcWithin(main, startAt, endAt),
      workerGcMs: gcWithin(worker, startAt, endAt),
    });
  }
  return cycles;
}

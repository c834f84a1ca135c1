import type { StepMark, ThreadTrace } from '../../src-main/runtime/engine/step-trace';

/**
 * One warm decode step as the worker's cycle sees it: from posting reply k to posting reply k+1,
 * the step run ahead in between (ms). The five worker parts partition the cycle exactly; the main
 * thread's parts run beside them and reach the cycle only through `waitForJobMs`.
 */
export interface StepCycle {
  /** Worker: reply k posted → session.run called (run ahead: batch, ids, feeds). */
  workerBeforeRunMs: number;
  /** Worker: the onnxruntime-node session.run call, called → outputs arrived. */
  runMs: number;
  /** Worker: outputs arrived → the row's token sampled (logits, K/V advance, pages, sampling). */
  workerAfterRunMs: number;
  /** Worker: token sampled → job k+1's message event (idle unless the job came before). */
  waitForJobMs: number;
  /** Worker: job k+1's message event → reply k+1 posted (settle, reply built and posted). */
  workerJobMs: number;
  /** The whole cycle: reply k posted → reply k+1 posted. */
  cycleMs: number;
  /** Reply k posted (worker) → its message event on the main thread. */
  hopToMainMs: number;
  /** Main: reply k's message event → its tokens flushed and the scheduler told. */
  mainApplyMs: number;
  /** Main: reply k applied → job k+1 posted (the loop plans and builds the next job). */
  mainPlanMs: number;
  /** Job k+1 posted → its message event in the worker; null when the worker was still busy (queued, not a hop). */
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
 * in flight per slot). A cycle counts only when exactly one session.run ran ahead in it, after the
 * reply and before the next job was handled (the prefill's and the first decode's are not warm).
 */
export function stepCyclesOf(main: ThreadTrace, worker: ThreadTrace): StepCycle[] {
  const posted = marksOf(main, 'jobPosted');
  const received = marksOf(main, 'replyReceived');
  const applied = marksOf(main, 'replyApplied');
  const jobAt = marksOf(worker, 'jobReceived');
  const replyAt = marksOf(worker, 'replyPosted');
  const runStarts = marksOf(worker, 'runStarted');
  const runEnds = marksOf(worker, 'runEnded');
  const sampledAts = marksOf(worker, 'sampled');
  const numJobs = Math.min(posted.length, received.length, applied.length, jobAt.length, replyAt.length);
  const cycles: StepCycle[] = [];
  for (let k = 0; k + 1 < numJobs; k++) {
    const startAt = replyAt[k]!;
    const nextJobAt = jobAt[k + 1]!;
    const runsInside = runStarts.filter((at) => at >= startAt && at < nextJobAt);
    if (runsInside.length !== 1) continue;
    const runStartAt = runsInside[0]!;
    const runEndAt = firstWithin(runEnds, runStartAt, nextJobAt);
    const sampledAt = runEndAt === null ? null : firstWithin(sampledAts, runEndAt, nextJobAt);
    if (runEndAt === null || sampledAt === null) continue;
    const endAt = replyAt[k + 1]!;
    cycles.push({
      workerBeforeRunMs: runStartAt - startAt,
      runMs: runEndAt - runStartAt,
      workerAfterRunMs: sampledAt - runEndAt,
      waitForJobMs: nextJobAt - sampledAt,
      workerJobMs: endAt - nextJobAt,
      cycleMs: endAt - startAt,
      hopToMainMs: received[k]! - startAt,
      mainApplyMs: applied[k]! - received[k]!,
      mainPlanMs: posted[k + 1]! - applied[k]!,
      hopToWorkerMs: posted[k + 1]! >= sampledAt ? nextJobAt - posted[k + 1]! : null,
      mainGcMs: gcWithin(main, startAt, endAt),
      workerGcMs: gcWithin(worker, startAt, endAt),
    });
  }
  return cycles;
}

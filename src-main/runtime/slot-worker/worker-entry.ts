/**
 * Entry of a slot's worker thread: owns the ONNX Runtime session (which blocks the thread it
 * runs on) and the slot's K/V, and answers one job at a time from the main thread.
 */
import { parentPort } from 'node:worker_threads';
import { WAKE_POLL_MS, pollForJob, warmPollForJob } from './wake-poll';
import { getHostMemory } from '../host-memory/loader';
import { releaseWeights } from './read-weights';
import type { HeldWeights } from './read-weights';
import type { ModelRunner } from './model-runner';
import { NOTICE_JOB_ID } from './protocol';
import type { Envelope, LoadJob, MainNotice, ReadyNotice, WorkerJob, WorkerReply } from './protocol';
import { SlotExecutor } from './slot-executor';
import { STEP_TRACE_ENV, markStep, startStepTrace } from './step-trace';
import { traceSessionRuns } from './step-trace-runs';
import { postStepped } from './post-stepped';
import { BoundSlotExecutor } from './ort-binding/bound-slot-executor';
import type { BoundRunner } from './ort-binding/bound-runner';
import { loadSlotRun } from './ort-binding/bound-load';

const now = (): number => performance.timeOrigin + performance.now();
let runner: ModelRunner | null = null;
/** The bound run path's runner (K/V written in place), when it replaced `runner` after the load. */
let boundRunner: BoundRunner | null = null;
let executor: SlotExecutor | BoundSlotExecutor | null = null;
/** The slot's host copy of its weights, kept (and locked, when allowed) while the slot is resident. */
let weights: HeldWeights | null = null;

async function load(job: LoadJob): Promise<WorkerReply> {
  const { loaded, runPath, ...runners } = await loadSlotRun(job);
  // A session build frees its scratch (repacked weights, the optimizer's copies) without glibc
  // handing the pages back: hundreds of MB resident for nothing on a real-size model.
  getHostMemory().trimHeap();
  weights = loaded.weights;
  if (runners.bound) {
    boundRunner = runners.bound;
    executor = new BoundSlotExecutor(runners.bound, now);
  } else {
    runner = runners.runner!;
    console.info(
      `${job.file}: K/V runs through onnxruntime-node (${runPath.path === 'ort-node' ? runPath.reason : ''})`,
    );
    executor = new SlotExecutor(runner, now);
  }
  return {
    type: 'loaded',
    host: weights.info,
    provider: loaded.provider,
    graphCache: loaded.graphCache,
    readMs: loaded.readMs,
    buildMs: loaded.buildMs,
    warmupMs: loaded.warmupMs,
    stepNodes: loaded.stepNodes,
    fusion: loaded.fusion,
    fuseMs: loaded.fuseMs,
    io: loaded.io,
    runPath,
  };
}

async function handle(job: WorkerJob): Promise<WorkerReply> {
  switch (job.type) {
    case 'load':
      return load(job);
    case 'step':
      if (!executor) throw new Error('slot is not loaded');
      return executor.step(job);
    case 'unload':
      // A step run ahead that failed was for rows nobody will ask about again: unload anyway.
      await executor?.settle().catch(() => undefined);
      await runner?.release();
      boundRunner?.release();
      if (weights) releaseWeights(weights);
      runner = null;
      boundRunner = null;
      executor = null;
      weights = null;
      getHostMemory().trimHeap();
      return { type: 'unloaded' };
  }
}

// The step-profile bench's stamps; off (a null check per mark) in the app.
if (process.env[STEP_TRACE_ENV] === '1') {
  startStepTrace('worker');
  traceSessionRuns();
}

parentPort!.on('message', onEnvelope);

/** One message from the main thread: a notice (answered by none) or a job. */
function onEnvelope(envelope: Envelope<WorkerJob | MainNotice>): void {
  // A notice beside the job in flight: it is read between two steps of a burst.
  if (envelope.body.type === 'cutBurst') return void executor?.cutBurst();
  // A request is on its way to this idle slot: its job comes within a routing's time.
  if (envelope.body.type === 'wake') return void pollForJob(parentPort!, onEnvelope, WAKE_POLL_MS);
  markStep('jobReceived');
  handle(envelope.body).then(
    (reply) => {
      markStep('replyBuilt');
      const post = () => parentPort!.postMessage({ jobId: envelope.jobId, body: reply });
      if (reply.type === 'stepped') return postStepped(executor, reply, post);
      post();
    },
    (error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      parentPort!.postMessage({ jobId: envelope.jobId, body: { type: 'failed', message } });
    },
  );
}

warmPollForJob();
// Every module above is loaded: a spare worker can now take a load without waiting for its start.
parentPort!.postMessage({ jobId: NOTICE_JOB_ID, body: { type: 'ready' } } satisfies Envelope<ReadyNotice>);

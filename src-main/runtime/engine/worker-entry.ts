/**
 * Entry of a slot's worker thread: owns the ONNX Runtime session (which blocks the thread it
 * runs on) and the slot's K/V, and answers one job at a time from the main thread.
 */
import { parentPort } from 'node:worker_threads';
import { readWeights } from './read-weights';
import type { HostWeights } from './read-weights';
import { KvBatch } from './kv-batch';
import { ModelRunner } from './model-runner';
import type { Envelope, LoadJob, WorkerJob, WorkerReply } from './protocol';
import { SlotExecutor } from './slot-executor';

const now = (): number => performance.timeOrigin + performance.now();
let runner: ModelRunner | null = null;
let executor: SlotExecutor | null = null;
/** The slot's host copy of its weights, kept (and locked, when allowed) while the slot is resident. */
let weights: HostWeights | null = null;

async function load(job: LoadJob): Promise<WorkerReply> {
  const readStartAt = now();
  weights = await readWeights(job);
  const buildStartAt = now();
  const spec = { file: job.file, io: job.io, geometry: job.geometry };
  runner = await ModelRunner.build(weights.weights, spec, { numThreads: job.numThreads });
  const warmupStartAt = now();
  await runner.forward(KvBatch.empty(job.geometry, ['warmup']), BigInt64Array.of(0n), 1);
  executor = new SlotExecutor(runner, now);
  return {
    type: 'loaded',
    host: weights.info,
    readMs: buildStartAt - readStartAt,
    buildMs: warmupStartAt - buildStartAt,
    warmupMs: now() - warmupStartAt,
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
      await executor?.settle().catch(() => undefined);
      await runner?.release();
      weights?.buffers.forEach((buffer) => buffer.release());
      runner = null;
      executor = null;
      weights = null;
      return { type: 'unloaded' };
  }
}

parentPort!.on('message', (envelope: Envelope<WorkerJob>) => {
  handle(envelope.body).then(
    (reply) => {
      parentPort!.postMessage({ jobId: envelope.jobId, body: reply });
      // The reply is on its way: run the next decode step while the main thread reads it.
      if (reply.type === 'stepped') {
        executor?.copyPendingPages();
        executor?.runAhead();
      }
    },
    (error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      parentPort!.postMessage({ jobId: envelope.jobId, body: { type: 'failed', message } });
    },
  );
});

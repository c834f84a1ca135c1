/**
 * The two thread hops every warm request pays, measured bare on this machine: a job posted to an
 * idle worker, and a reply posted back after the worker was busy as long as a forward. A slot's
 * forward runs off the main thread, so these are the floor under the warm-path overhead.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { median } from './decode';

/**
 * Medians of the two hops, in ms; `busyMs` is how long the worker held its core before replying,
 * `idleMs` how long both threads slept before each job.
 */
export interface ThreadHops {
  inboundMs: number;
  replyMs: number;
  busyMs: number;
  idleMs: number;
  numRuns: number;
}

// Wall-clock ms with sub-ms precision; each thread's own origin plus its own clock, so stamps
// taken on the two threads compare.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const wallAt = () => performance.timeOrigin + performance.now();
parentPort.on('message', ({ busyMs }) => {
  const receivedAt = wallAt();
  while (wallAt() < receivedAt + busyMs);
  parentPort.postMessage({ receivedAt, repliedAt: wallAt() });
});`;

const wallAt = (): number => performance.timeOrigin + performance.now();

/** One job and its reply; a worker error rejects instead of hanging the bench. */
function roundTrip(worker: Worker, busyMs: number): Promise<{ receivedAt: number; repliedAt: number }> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    worker.once('error', onError);
    worker.once('message', (stamps: { receivedAt: number; repliedAt: number }) => {
      worker.off('error', onError);
      resolve(stamps);
    });
    worker.postMessage({ busyMs });
  });
}

/**
 * Round trips to a bare worker, each after `idleMs` with both threads idle (as between requests):
 * inbound = post → the worker's handler runs; reply = the worker posts → the main thread's
 * handler runs, after the worker spun for `busyMs` while the main thread waited.
 */
export async function measureThreadHops(busyMs: number, numRuns: number, idleMs = 50): Promise<ThreadHops> {
  const worker = new Worker(WORKER_SOURCE, { eval: true });
  const inbound: number[] = [];
  const reply: number[] = [];
  try {
    for (let i = 0; i < numRuns; i++) {
      await sleep(idleMs);
      const postedAt = wallAt();
      const stamps = await roundTrip(worker, busyMs);
      const gotAt = wallAt();
      inbound.push(stamps.receivedAt - postedAt);
      reply.push(gotAt - stamps.repliedAt);
    }
  } finally {
    await worker.terminate();
  }
  return { inboundMs: median(inbound), replyMs: median(reply), busyMs, idleMs, numRuns };
}

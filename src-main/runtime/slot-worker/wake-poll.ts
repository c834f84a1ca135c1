/**
 * A woken slot worker's short poll for its job. A thread asleep in its event loop takes ~0.2 ms
 * to run a posted message on this VM (the bench's bare thread hop); one that polls its port
 * takes microseconds. So a request's arrival wakes its slot's idle worker (WakeNotice), the
 * wake-up runs while the main thread routes the request, and the job is read at once.
 */
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';

/**
 * How long a woken worker polls (ms): a warm request's routing and planning take ~0.5 ms, a
 * colder JIT's a few times that; a job that comes later (a prompt tokenized off the thread, a
 * request refused) finds the thread asleep, as without the notice.
 */
export const WAKE_POLL_MS = 2;

/** Whether arrivals wake their slot's worker: `FF_WAKE_POLL=off` lets it sleep (the A/B switch). */
export function isWakePollOn(): boolean {
  return process.env.FF_WAKE_POLL !== 'off';
}

/**
 * Reads `port` until a message that is not a notice arrives or `pollMs` pass, handing each to
 * `handle` in order; returns whether a job was handled. Messages read here never reach the
 * port's 'message' listeners.
 */
export function pollForJob<T extends { body: { type: string } }>(
  port: MessagePort,
  handle: (envelope: T) => void,
  pollMs: number,
  now: () => number = () => performance.now(),
): boolean {
  const untilAt = now() + pollMs;
  while (now() < untilAt) {
    const received = receiveMessageOnPort(port);
    if (!received) continue;
    const envelope = received.message as T;
    const type = envelope.body.type;
    // A second wake while polling only extends nothing; a cut has no job to end yet.
    if (type === 'wake' || type === 'cutBurst') continue;
    handle(envelope);
    return true;
  }
  return false;
}

/**
 * Runs the poll loop on a port nobody posts to, at the worker's start: its hot loop is then
 * compiled (V8 optimizes it on a background thread) before any request. Compiled during a
 * request's first wake instead, that job took a core from the request's own threads on a
 * 2-core machine for 1–4 ms (docs/benchmarks.md).
 */
export function warmPollForJob(numRounds = 4): void {
  const { port1, port2 } = new MessageChannel();
  for (let round = 0; round < numRounds; round++) pollForJob(port2, () => undefined, WAKE_POLL_MS);
  port1.close();
}

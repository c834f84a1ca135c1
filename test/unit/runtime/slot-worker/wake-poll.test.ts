import { MessageChannel } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { WAKE_POLL_MS, pollForJob, warmPollForJob } from '../../../../src-main/runtime/slot-worker/wake-poll';

// A woken worker polls its port for the job; real MessagePorts, a counting clock for the limit.

type Message = { jobId: number; body: { type: string } };
const channels: MessageChannel[] = [];
afterEach(() => {
  for (const channel of channels.splice(0)) channel.port1.close();
});

function channel() {
  const made = new MessageChannel();
  channels.push(made);
  return made;
}

/** A clock that moves 0.1 ms each time it is read, so a poll ends after a known number of reads. */
function countingClock() {
  let nowMs = 0;
  return () => (nowMs += 0.1);
}

describe('a woken worker polling for its job', () => {
  it('hands over the job posted while it polls, and only that job', () => {
    const { port1, port2 } = channel();
    port1.postMessage({ jobId: 7, body: { type: 'step' } });
    port1.postMessage({ jobId: 8, body: { type: 'step' } });
    const handled: Message[] = [];
    expect(pollForJob<Message>(port2, (m) => handled.push(m), 2, countingClock())).toBe(true);
    expect(handled).toEqual([{ jobId: 7, body: { type: 'step' } }]);
  });

  it('skips notices read while polling and takes the job after them', () => {
    const { port1, port2 } = channel();
    port1.postMessage({ jobId: 0, body: { type: 'wake' } });
    port1.postMessage({ jobId: 0, body: { type: 'cutBurst' } });
    port1.postMessage({ jobId: 3, body: { type: 'unload' } });
    const handled: Message[] = [];
    expect(pollForJob<Message>(port2, (m) => handled.push(m), 2, countingClock())).toBe(true);
    expect(handled.map((m) => m.body.type)).toEqual(['unload']);
  });

  it('gives up after its limit, and a job posted later reaches the port listener', async () => {
    const { port1, port2 } = channel();
    const handled: Message[] = [];
    expect(pollForJob<Message>(port2, (m) => handled.push(m), 2, countingClock())).toBe(false);
    expect(handled).toEqual([]);
    const heard = new Promise<Message>((resolve) => port2.once('message', resolve));
    port1.postMessage({ jobId: 4, body: { type: 'step' } });
    expect(await heard).toEqual({ jobId: 4, body: { type: 'step' } });
  });

  it('warms its loop at the worker start on a port of its own, for the poll limit each round', () => {
    const startedAt = performance.now();
    warmPollForJob(2);
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(2 * WAKE_POLL_MS);
  });
});

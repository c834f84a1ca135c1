import { Worker } from 'node:worker_threads';
import { describe, expect, it, vi } from 'vitest';
import { SPARE_QUIET_MS, SpareWorker } from '../../../../src-main/runtime/slot-worker/spare-worker';
import type { Log } from '../../../../src-main/telemetry/log/log';

/** A thread that announces itself ready the way a slot worker's entry does, then idles. */
const readyThread = () =>
  new Worker(
    `const { parentPort } = require('node:worker_threads');
     parentPort.on('message', () => {});
     parentPort.postMessage({ jobId: 0, body: { type: 'ready' } });`,
    { eval: true },
  );
/** A thread whose start fails (an entry that throws while loading). */
const failingThread = () => new Worker(`throw new Error('entry failed to load')`, { eval: true });

function recordingLog(): Log & { lines: string[] } {
  const lines: string[] = [];
  return { lines, warn: (topic, message) => lines.push(`[${topic}] ${message}`) };
}

describe('SpareWorker', () => {
  it('hands out the spare it started, and starts a fresh thread only when it has none', async () => {
    const spawn = vi.fn(readyThread);
    const pool = new SpareWorker(recordingLog(), spawn);
    pool.refill();
    pool.refill();
    await vi.waitFor(() => expect(pool.state().status).toBe('ready'));
    const spareId = pool.state().threadId;
    const taken = pool.take();
    expect(taken.threadId).toBe(spareId);
    expect(spawn).toHaveBeenCalledTimes(1);
    const fresh = pool.take();
    expect(spawn).toHaveBeenCalledTimes(2);
    expect(pool.state()).toMatchObject({ status: 'none', numStarted: 2, numLiveThreads: 2 });
    await Promise.all([taken.terminate(), fresh.terminate(), pool.close()]);
    await vi.waitFor(() => expect(pool.state()).toMatchObject({ status: 'off', numLiveThreads: 0 }));
  });

  it('replaces a spare that dies before it is needed, then gives up and says so', async () => {
    const log = recordingLog();
    const pool = new SpareWorker(log, failingThread);
    pool.refill();
    await vi.waitFor(() => expect(pool.state().status).toBe('off'));
    expect(pool.state()).toMatchObject({ numStarted: 2, threadId: null });
    expect(log.lines[0]).toMatch(
      /spare slot worker exited before it was needed \(entry failed to load\); starting another/,
    );
    expect(log.lines[1]).toMatch(/no spare after 2 such exits: each load starts its own worker/);
    pool.refill();
    expect(pool.state().numStarted).toBe(2);
    await vi.waitFor(() => expect(pool.state().numLiveThreads).toBe(0));
  });

  it('starts a spare after a quiet spell, none when the spell is cut short, and none once closed', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const spawn = vi.fn(readyThread);
      const pool = new SpareWorker(recordingLog(), spawn);
      pool.refillWhenQuiet();
      vi.advanceTimersByTime(SPARE_QUIET_MS - 1);
      pool.holdOff();
      vi.advanceTimersByTime(10 * SPARE_QUIET_MS);
      expect(spawn).not.toHaveBeenCalled();
      pool.refillWhenQuiet();
      vi.advanceTimersByTime(SPARE_QUIET_MS);
      expect(spawn).toHaveBeenCalledTimes(1);
      vi.useRealTimers();
      await pool.close();
      pool.refill();
      pool.refillWhenQuiet();
      expect(spawn).toHaveBeenCalledTimes(1);
      await vi.waitFor(() => expect(pool.state()).toMatchObject({ status: 'off', numLiveThreads: 0 }));
    } finally {
      vi.useRealTimers();
    }
  });
});

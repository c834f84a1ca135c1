import type { Worker } from 'node:worker_threads';
import { describe, expect, it, vi } from 'vitest';
import type { Runtime } from '../../../src-main/runtime/runtime';
import { createTestRuntime, generate, TEST_MODEL_ID } from '../../support/runtime';

/** The thread a slot's runner drives (the runner's `worker` is private: reaching it is the point). */
function slotThreadId(runtime: Runtime): number {
  return (runtime.slots()[0]!.runner as unknown as { worker: Worker }).worker.threadId;
}

const spareOf = (runtime: Runtime) => runtime.registry.spareState()!;

describe('the spare slot worker', () => {
  it('is taken by the next cold load (no thread started for it), refilled once the runtime is quiet, and gone after close', async () => {
    const runtime = await createTestRuntime();
    try {
      await vi.waitFor(() => expect(spareOf(runtime).status).toBe('ready'), { timeout: 30_000 });
      const before = spareOf(runtime);
      console.log(`spare worker start: ${before.lastStartMs?.toFixed(0)} ms`);
      expect(before.numStarted).toBe(1);

      await runtime.prefetch(TEST_MODEL_ID);
      expect(slotThreadId(runtime)).toBe(before.threadId);
      expect(spareOf(runtime).numStarted).toBe(1);

      // The load left nothing loading or running: a fresh spare starts, off the load's path.
      await vi.waitFor(() => expect(spareOf(runtime).status).toBe('ready'), { timeout: 30_000 });
      expect(spareOf(runtime)).toMatchObject({ numStarted: 2, numLiveThreads: 2 });
      expect(spareOf(runtime).threadId).not.toBe(before.threadId);
    } finally {
      await runtime.close();
    }
    expect(spareOf(runtime).status).toBe('off');
    await vi.waitFor(() => expect(spareOf(runtime).numLiveThreads).toBe(0));
  });

  it('gives the same greedy tokens as a slot on a freshly started worker', async () => {
    const prompt = { kind: 'text' as const, text: 'It was the best of times' };
    const withSpare = await createTestRuntime();
    const without = await createTestRuntime({ isSpareWorker: false });
    try {
      expect(without.registry.spareState()).toBeNull();
      await vi.waitFor(() => expect(spareOf(withSpare).status).toBe('ready'), { timeout: 30_000 });
      const taken = await generate(withSpare, { prompt, maxTokens: 16, ignoreEos: true });
      const fresh = await generate(without, { prompt, maxTokens: 16, ignoreEos: true });
      expect(taken.timeline.isColdSlot).toBe(true);
      expect(taken.tokenIds).toHaveLength(16);
      expect(taken.tokenIds).toEqual(fresh.tokenIds);
    } finally {
      await Promise.all([withSpare.close(), without.close()]);
    }
    await vi.waitFor(() => expect(spareOf(withSpare).numLiveThreads).toBe(0));
  });

  it('closes a spare still starting without leaving its thread behind', async () => {
    const runtime = await createTestRuntime();
    expect(spareOf(runtime).status).toBe('starting');
    await runtime.close();
    await vi.waitFor(() => expect(spareOf(runtime)).toMatchObject({ status: 'off', numLiveThreads: 0 }));
  });
});

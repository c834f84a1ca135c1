import type { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Runtime } from '../../../src-main/runtime/runtime';
import type { SlotEvent } from '../../../src-main/runtime/slots/slot-types';
import { collectGeneration } from '../../../src-main/runtime/collect';
import { createTestRuntime, expectNothingHeld, generate, TEST_MODEL_ID } from '../../support/runtime';

/**
 * Makes the slot's real worker thread die the way a bug in it would: a message it cannot read
 * throws outside any handler, and the thread exits. (The runner's `worker` is private: reaching
 * it is the point of this test.)
 */
function crashWorker(runtime: Runtime): void {
  const runner = runtime.slots()[0]!.runner as unknown as { worker: Worker };
  runner.worker.postMessage(null);
}

describe('a slot whose worker dies', () => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await createTestRuntime();
  });
  afterAll(() => runtime.close());

  it('fails the slot with the reason, ends its sequences with an error, and the next request reloads it', async () => {
    const events: SlotEvent[] = [];
    runtime.onSlotEvent((event) => events.push(event));
    await generate(runtime, { prompt: { kind: 'text', text: 'warm up' }, maxTokens: 1 });
    let numChunks = 0;
    const running = collectGeneration(
      runtime,
      {
        requestId: 'doomed',
        modelId: TEST_MODEL_ID,
        prompt: { kind: 'text', text: 'It was the best of times' },
        maxTokens: 2_000,
        ignoreEos: true,
        temperature: 0,
      },
      () => numChunks++,
    );
    await vi.waitFor(() => expect(numChunks).toBeGreaterThan(2));
    crashWorker(runtime);
    const outcome = await running;
    expect(outcome.timeline.finishReason).toBe('error');
    expect(outcome.errorMessage).toMatch(/the model's worker stopped \(.+\); the next request reloads it/);
    const failed = events.find((e) => e.toStatus === 'failed');
    expect(failed).toMatchObject({ cause: 'error', reason: expect.stringMatching(/slot worker/) });
    expect(runtime.slots()[0]).toMatchObject({ status: 'failed', runner: null });
    expectNothingHeld(runtime);

    const next = await generate(runtime, { prompt: { kind: 'text', text: 'Once more' }, maxTokens: 4 });
    expect(next.timeline.finishReason).toBe('length');
    expect(next.timeline.isColdSlot).toBe(true);
    expect(runtime.slots()[0]!.status).toBe('resident');
    const afterFailure = events.slice(events.indexOf(failed!) + 1).map((e) => e.toStatus);
    expect(afterFailure.slice(0, 2)).toEqual(['prefetching', 'resident']);
  });
});

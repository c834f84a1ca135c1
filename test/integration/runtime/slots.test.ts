import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Runtime } from '../../../src-main/runtime/runtime';
import { footprintOf } from '../../../src-main/runtime/slots/slot';
import { randomModelsDir } from '../../support/models';
import { chat, createTestRuntime, expectNothingHeld, generate, TEST_MODEL_ID } from '../../support/runtime';

/** Waits until `check` holds (vi.waitFor, polling every 10 ms for up to 10 s). */
const waitFor = (check: () => boolean) =>
  vi.waitFor(() => expect(check()).toBe(true), { timeout: 10_000, interval: 10 });

describe('model slots', () => {
  let runtime: Runtime;
  afterEach(() => runtime.close());

  it('takes the explicit slow path on a cold slot and the warm path after, with every transition recorded', async () => {
    runtime = await createTestRuntime();
    const cold = await generate(runtime, { prompt: chat('Hello'), maxTokens: 2 });
    const warm = await generate(runtime, { prompt: chat('Hello again'), maxTokens: 2 });
    expect(cold.timeline.isColdSlot).toBe(true);
    expect(cold.timeline.parts.slotLoad).toBeGreaterThan(0);
    expect(warm.timeline.parts.slotLoad).toBe(0);
    const transitions = runtime.slotEvents().map((e) => `${e.fromStatus}>${e.toStatus}:${e.cause}`);
    expect(transitions.slice(0, 4)).toEqual([
      'empty>prefetching:request',
      'prefetching>resident:request',
      'resident>active:request',
      'active>resident:request',
    ]);
    expect(runtime.slots()[0]!.numHits).toBe(1);
  });

  it('prefetches ahead of use, then a manual evict unloads the idle slot', async () => {
    runtime = await createTestRuntime();
    const slot = await runtime.prefetch(TEST_MODEL_ID);
    expect(slot.status).toBe('resident');
    expect(slot.loadTimings!.buildMs).toBeGreaterThan(0);
    const result = await generate(runtime, { prompt: chat('Hi'), maxTokens: 2 });
    expect(result.timeline.isColdSlot).toBe(false);
    await runtime.evict(slot.slotId);
    expect(slot.status).toBe('empty');
    expect(runtime.slotEvents().at(-1)).toMatchObject({ toStatus: 'empty', cause: 'manual' });
  });

  it("drops an evicted slot's context pages: its next session could never hit them", async () => {
    runtime = await createTestRuntime();
    const slot = await runtime.prefetch(TEST_MODEL_ID);
    await generate(runtime, { prompt: chat('Tell me about the sea, the wind and the long grey shore.') });
    const before = runtime.pageSummary();
    expect(before.numPages).toBeGreaterThan(0);
    await runtime.evict(slot.slotId);
    expect(runtime.pageSummary()).toMatchObject({ numPages: 0, bytes: 0 });
  });

  it('never evicts a slot while a sequence runs on it', async () => {
    runtime = await createTestRuntime();
    await runtime.prefetch(TEST_MODEL_ID);
    const slot = runtime.slots()[0]!;
    const pending = generate(runtime, {
      prompt: chat('Write a long letter.'),
      maxTokens: 300,
      ignoreEos: true,
    });
    await waitFor(() => slot.status === 'active');
    await expect(runtime.evict(slot.slotId)).rejects.toThrow(/only an idle resident slot can be evicted/);
    await pending;
    expectNothingHeld(runtime);
  });

  it('unloads after the request when asked, with cause ttl', async () => {
    runtime = await createTestRuntime();
    await generate(runtime, {
      prompt: chat('Hi'),
      maxTokens: 2,
      keepAlive: { kind: 'unload-after-request' },
    });
    await waitFor(() => runtime.slots()[0]!.status === 'empty');
    expect(runtime.slotEvents().at(-1)).toMatchObject({ cause: 'ttl', reason: 'unload after request' });
  });

  it('evicts an idle slot when its keep-alive runs out, and keeps a "forever" slot', async () => {
    runtime = await createTestRuntime();
    const slot = await runtime.prefetch(TEST_MODEL_ID);
    runtime.keep(slot.slotId, { kind: 'forever' });
    expect(slot.expiresAt).toBeNull();
    runtime.keep(slot.slotId, { kind: 'ms', ms: 50 });
    expect(slot.expiresAt).not.toBeNull();
    await waitFor(() => slot.status === 'empty');
    expect(runtime.slotEvents().at(-1)).toMatchObject({ cause: 'ttl', reason: 'keep-alive expired' });
  });

  it('evicts the least recently used idle slot to fit the budget, with cause budget', async () => {
    runtime = await createTestRuntime({ userModelsDir: randomModelsDir(['second-model']) });
    const first = await runtime.prefetch(TEST_MODEL_ID);
    const second = runtime.catalogue.resolve('second-model');
    if (second instanceof Error) throw second;
    runtime.registry['options'].budgetBytes = Math.max(first.footprintBytes, footprintOf(second)) + 1;
    await runtime.prefetch('second-model');
    expect(first.status).toBe('empty');
    expect(runtime.slotEvents().find((e) => e.cause === 'budget')).toMatchObject({
      slotId: first.slotId,
      toStatus: 'evicting',
    });
  });
});

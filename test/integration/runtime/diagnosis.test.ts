import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../../src-main/runtime/runtime';
import { collectGeneration } from '../../../src-main/runtime/collect';
import { TEST_MODEL_ID, chat, createTestRuntime, expectNothingHeld, generate } from '../../support/runtime';

const QUESTION =
  'It is a truth universally acknowledged, that a single man in possession of a good fortune must be in want of a wife.';

describe('facts that explain a slow first token, recorded where they happen', () => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await createTestRuntime({ maxSeats: 1 });
  });
  afterAll(async () => {
    await runtime.close();
  });

  it('a first request names the first load and finds no cached prefix', async () => {
    const { timeline } = await generate(runtime, { prompt: chat(QUESTION) });
    expect(timeline.parts.slotLoad).toBeGreaterThan(0);
    expect(timeline.diagnosis?.slotLoad).toMatchObject({ kind: 'first-load' });
    expect(timeline.diagnosis?.pageMiss).toMatchObject({ kind: 'no-prefix', numCachedTokens: 0 });
  });

  it('the next turn reuses pages and says where its prompt left the cached one', async () => {
    const first = await generate(runtime, { prompt: chat(QUESTION) });
    const { timeline } = await generate(runtime, { prompt: chat(QUESTION, first.text, 'And then?') });
    const miss = timeline.diagnosis?.pageMiss;
    expect(timeline.diagnosis?.slotLoad).toBeNull();
    expect(miss?.numCachedTokens).toBeGreaterThan(0);
    expect(miss?.kind).toMatch(/^(diverged|beyond-cache|unaligned-tail)$/);
    if (miss?.kind === 'diverged') expect(miss.divergedAtToken).toBeGreaterThanOrEqual(miss.numCachedTokens);
  });

  it('after an eviction by hand, the load names it and the old pages are another slot revision', async () => {
    const { timeline: before } = await generate(runtime, { prompt: chat('Good evening.') });
    await runtime.evict(before.slotId!);
    const { timeline } = await generate(runtime, { prompt: chat(QUESTION) });
    expect(timeline.diagnosis?.slotLoad).toMatchObject({ kind: 'manual', reason: 'evicted by the user' });
    expect(timeline.diagnosis?.slotLoad?.unloadedAtWallMs).toBeGreaterThan(0);
    expect(timeline.diagnosis?.pageMiss).toMatchObject({ kind: 'revision', changedRevisions: ['slot'] });
  });

  it('a request queued behind another names it', async () => {
    const long = collectGeneration(runtime, {
      requestId: 'holds-the-seat',
      modelId: TEST_MODEL_ID,
      prompt: chat('Write a long letter.'),
      maxTokens: 64,
      ignoreEos: true,
      conversationId: 'c-other',
    });
    const queued = collectGeneration(runtime, {
      requestId: 'waits',
      modelId: TEST_MODEL_ID,
      prompt: chat('Good morning.'),
      maxTokens: 4,
    });
    const [, waited] = await Promise.all([long, queued]);
    expect(waited.timeline.parts.queue).toBeGreaterThan(0);
    expect(waited.timeline.diagnosis?.queuedBehind).toEqual([
      { requestId: 'holds-the-seat', conversationId: 'c-other', isRunning: expect.any(Boolean) },
    ]);
    expect(waited.timeline.diagnosis?.numQueuedBehind).toBe(1);
    expectNothingHeld(runtime);
  });
});

import { RateLimitError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src-main/telemetry/clock';
import { expectNothingHeld, TEST_MODEL_ID } from '../../support/runtime';
import type { ApiFixture } from './api-server';
import { startApiFixture } from './api-server';

const LONG = {
  model: TEST_MODEL_ID,
  messages: [{ role: 'user' as const, content: 'Write a very long letter to your sister.' }],
  max_tokens: 1500,
  temperature: 0,
};

/** Waits until the runtime has no step running in a worker (the one in flight at a cancel returns). */
async function untilIdle(api: ApiFixture): Promise<void> {
  for (let i = 0; i < 200 && (api.runtime.load().numRunning > 0 || api.runtime.load().numWaiting > 0); i++)
    await new Promise((r) => setTimeout(r, 5));
  await new Promise((r) => setTimeout(r, 20));
}

describe('a client that goes away, and a full queue', () => {
  let api: ApiFixture;
  let cancelAts: Map<string, number>;
  beforeAll(async () => {
    api = await startApiFixture({
      runtime: {
        maxSeats: 1,
        limits: {
          maxPromptTokens: 1024,
          maxOutputTokens: 2000,
          defaultMaxTokens: 16,
          maxQueue: 1,
          defaultDeadlineMs: null,
        },
      },
    });
    cancelAts = new Map();
    const cancel = api.runtime.cancel.bind(api.runtime);
    api.runtime.cancel = (requestId: string) => {
      cancelAts.set(requestId, systemClock.now());
      return cancel(requestId);
    };
  });
  afterAll(() => api.close());

  it('cancels the request within one scheduler iteration when the client disconnects mid-stream', async () => {
    const stream = await api.client.chat.completions.create({ ...LONG, stream: true });
    let id = '';
    let numChunks = 0;
    for await (const chunk of stream) {
      id = chunk.id;
      if (++numChunks === 5) break; // leaving the loop aborts the response: the socket closes
    }
    const abortAt = systemClock.now();
    const timeline = await api.timelineOf(id);
    expect(timeline.finishReason).toBe('cancelled');
    expect(timeline.numOutputTokens).toBeLessThan(LONG.max_tokens);
    // The cancel ends the timeline on the spot (finish is stamped inside the cancel call),
    // so no further token is counted: at most the step already in the worker completes, unseen.
    const cancelAt = cancelAts.get(id);
    expect(cancelAt).toBeDefined();
    expect(cancelAt! - abortAt).toBeLessThan(250); // the socket's close reaches the server (same process)
    expect(timeline.finishedAt).toBeGreaterThanOrEqual(cancelAt!);
    expect(timeline.finishedAt - cancelAt!).toBeLessThan(5);
    await untilIdle(api);
    expectNothingHeld(api.runtime);
  });

  it('cancels a non-streamed request whose client gave up', async () => {
    const controller = new AbortController();
    const numBefore = api.timelines.length;
    const pending = api.client.chat.completions.create(LONG, { signal: controller.signal });
    await waitFor(() => (api.runtime.load().numRunning === 1 ? true : undefined));
    controller.abort();
    await expect(pending).rejects.toThrow();
    const timeline = await waitFor(() => api.timelines[numBefore]);
    expect(timeline.finishReason).toBe('cancelled');
    expect(timeline.requestId).toMatch(/^chatcmpl-/);
    await untilIdle(api);
    expectNothingHeld(api.runtime);
  });

  it('answers 429 with Retry-After when the queue is full, and the admitted requests still finish', async () => {
    // One seat and a queue of one: of a burst of six, the first runs, one waits, the rest are refused.
    const burst = Array.from({ length: 6 }, (_, i) =>
      api.client.chat.completions.create({
        ...LONG,
        messages: [{ role: 'user', content: `Question ${i}: tell me more.` }],
        max_tokens: 48,
      }),
    );
    const settled = await Promise.allSettled(burst);
    const refused = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
    expect(refused.length).toBeGreaterThan(0);
    for (const error of refused) {
      expect(error).toBeInstanceOf(RateLimitError);
      const rateLimit = error as RateLimitError;
      expect(rateLimit.status).toBe(429);
      expect(Number(rateLimit.headers?.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(rateLimit.error).toMatchObject({ type: 'rate_limit_error', code: 'queue_full' });
    }
    const answered = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    expect(answered.length).toBeGreaterThanOrEqual(2);
    for (const completion of answered)
      expect(['length', 'stop']).toContain(completion.choices[0]!.finish_reason);
    expect(api.timelines.filter((t) => t.finishReason === 'rejected')).toHaveLength(refused.length);
    await untilIdle(api);
    expectNothingHeld(api.runtime);
  });
});

async function waitFor<T>(probe: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const startMs = performance.now();
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (performance.now() - startMs > timeoutMs) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
}

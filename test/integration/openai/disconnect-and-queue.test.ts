import { RateLimitError } from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../../src-main/telemetry/clock';
import { expectNothingHeld, TEST_MODEL_ID } from '../../support/runtime';
import type { ApiFixture } from './api-server';
import { startApiFixture } from './api-server';

const LONG = {
  model: TEST_MODEL_ID,
  messages: [{ role: 'user' as const, content: 'Write a very long letter to your sister.' }],
  max_tokens: 1500,
  temperature: 0,
  // Writes to max_tokens whatever the model says: a request is surely still running when looked at.
  ignore_eos: true,
};
const WAIT = { timeout: 10_000, interval: 5 };

/** Waits until nothing is running, waiting or held (a cancel releases at once; this also covers a late reply). */
async function untilNothingHeld(api: ApiFixture): Promise<void> {
  await vi.waitFor(() => expectNothingHeld(api.runtime), WAIT);
}

describe('a client that goes away, and a full queue', () => {
  let api: ApiFixture;
  /** When each cancel was called and when it returned (monotonic ms). */
  let cancels: Map<string, { calledAt: number; returnedAt: number }>;
  /** When each request's last token was handed to its sink, the transport's side (monotonic ms). */
  let lastTokenHandedAts: Map<string, number>;
  beforeAll(async () => {
    api = await startApiFixture({
      runtime: {
        maxSeats: 1,
        maxPromptTokens: 1024,
        maxOutputTokens: 2000,
        defaultMaxTokens: 16,
        maxQueue: 1,
        defaultDeadlineMs: null,
      },
    });
    cancels = new Map();
    lastTokenHandedAts = new Map();
    const submit = api.runtime.submit.bind(api.runtime);
    api.runtime.submit = (request, sink) =>
      submit(request, {
        ...(sink.onQueued ? { onQueued: (position: number) => sink.onQueued!(position) } : {}),
        onChunk: (chunk) => {
          if (chunk.tokenIds.length > 0) lastTokenHandedAts.set(request.requestId, systemClock.now());
          sink.onChunk(chunk);
        },
        onDone: (outcome) => sink.onDone(outcome),
      });
    const cancel = api.runtime.cancel.bind(api.runtime);
    api.runtime.cancel = (requestId: string) => {
      const calledAt = systemClock.now();
      const isKnown = cancel(requestId);
      cancels.set(requestId, { calledAt, returnedAt: systemClock.now() });
      return isKnown;
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
    const timeline = await api.timelineOf(id);
    expect(timeline.finishReason).toBe('cancelled');
    expect(timeline.numOutputTokens).toBeLessThan(LONG.max_tokens);
    // The cancel ends the timeline on the spot (finish is stamped inside the cancel call), so
    // no token is flushed after it: the step already in the worker completes, unseen. The last
    // flush is read where it happens (the sink): the timeline's gaps are the worker's stamps
    // (ITL measured where each token is produced), so its first flush plus those gaps is not
    // the last flush's time, and under a loaded CI it landed a millisecond after the cancel.
    const cancel = cancels.get(id);
    expect(cancel).toBeDefined();
    expect(timeline.finishedAt).toBeGreaterThanOrEqual(cancel!.calledAt);
    expect(timeline.finishedAt).toBeLessThanOrEqual(cancel!.returnedAt);
    expect(lastTokenHandedAts.get(id)).toBeLessThanOrEqual(cancel!.calledAt);
    await untilNothingHeld(api);
  });

  it('cancels a non-streamed request whose client gave up', async () => {
    const controller = new AbortController();
    const numBefore = api.timelines.length;
    const pending = api.client.chat.completions.create(LONG, { signal: controller.signal });
    await vi.waitFor(() => expect(api.runtime.queueSummary().numRunning).toBe(1), WAIT);
    controller.abort();
    await expect(pending).rejects.toThrow();
    const timeline = await vi.waitFor(() => {
      const found = api.timelines[numBefore];
      expect(found).toBeDefined();
      return found!;
    }, WAIT);
    expect(timeline.finishReason).toBe('cancelled');
    expect(timeline.requestId).toMatch(/^chatcmpl-/);
    await untilNothingHeld(api);
  });

  it('answers 429 with Retry-After when the queue is full, and the admitted requests still finish', async () => {
    // One seat and a queue of one: the first runs, the second waits, the other four are refused.
    const ask = (i: number) =>
      api.client.chat.completions.create({
        ...LONG,
        messages: [{ role: 'user', content: `Question ${i}: tell me more.` }],
        max_tokens: 200,
      });
    const running = ask(0);
    await vi.waitFor(() => expect(api.runtime.queueSummary().numRunning).toBe(1), WAIT);
    const waiting = ask(1);
    await vi.waitFor(() => expect(api.runtime.queueSummary().numWaiting).toBe(1), WAIT);
    const settled = await Promise.allSettled([running, waiting, ask(2), ask(3), ask(4), ask(5)]);
    const refused = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
    expect(refused).toHaveLength(4);
    for (const error of refused) {
      expect(error).toBeInstanceOf(RateLimitError);
      const rateLimit = error as RateLimitError;
      expect(rateLimit.status).toBe(429);
      expect(Number(rateLimit.headers?.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(rateLimit.error).toMatchObject({ type: 'rate_limit_error', code: 'queue_full' });
    }
    const answered = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    expect(answered).toHaveLength(2);
    for (const completion of answered)
      expect(['length', 'stop']).toContain(completion.choices[0]!.finish_reason);
    expect(api.timelines.filter((t) => t.finishReason === 'rejected')).toHaveLength(refused.length);
    await untilNothingHeld(api);
  });
});

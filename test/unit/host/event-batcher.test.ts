import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EventBatcher, type BatcherClock } from '../../../src-main/host/event-batcher';
import type { PushedEvent } from '../../../src-main/service/contract/events';

const fakeClock: BatcherClock = {
  nowMs: () => Date.now(),
  setTimer: (callback, delayMs) => setTimeout(callback, delayMs),
  clearTimer: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

const chunk = (requestId: string, text: string, numTokens = 1): PushedEvent => ({
  name: 'request.chunk',
  payload: { requestId, text, numTokens },
});
const stats = (atWallMs: number): PushedEvent => ({
  name: 'engine.stats',
  payload: { atWallMs, numRunning: 1, numWaiting: 0, numSeats: 4, maxQueue: 64 },
});
const done = (requestId: string) =>
  ({ name: 'request.done', payload: { requestId, messageId: null } }) as unknown as PushedEvent;
const queued = (requestId: string): PushedEvent => ({
  name: 'request.queued',
  payload: { requestId, position: 0 },
});

function recordingBatcher(options: { intervalMs?: number; maxBatchSize?: number } = {}) {
  const sends: { atMs: number; batch: PushedEvent[] }[] = [];
  const batcher = new EventBatcher({
    ...options,
    clock: fakeClock,
    send: (batch) => sends.push({ atMs: Date.now(), batch }),
  });
  return { batcher, sends, events: () => sends.flatMap((send) => send.batch) };
}

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('EventBatcher', () => {
  it('sends the first event after a quiet spell at once (no added first-chunk latency)', () => {
    const { batcher, sends } = recordingBatcher();
    batcher.push(chunk('a', 'Hel'));
    expect(sends).toHaveLength(0);
    vi.advanceTimersByTime(0);
    expect(sends).toHaveLength(1);
    expect(sends[0]!.batch).toEqual([chunk('a', 'Hel')]);
  });

  it('turns a fast interleaved token stream into few sends, losing and reordering nothing', () => {
    const { batcher, sends, events } = recordingBatcher({ intervalMs: 50 });
    const expected = new Map<string, string>();
    const requestIds = ['a', 'b', 'c'];
    for (let i = 0; i < 10_000; i += 1) {
      const requestId = requestIds[i % 3]!;
      const text = `t${i} `;
      expected.set(requestId, (expected.get(requestId) ?? '') + text);
      batcher.push(chunk(requestId, text));
      if (i % 10 === 9) vi.advanceTimersByTime(1); // 10 tokens per ms: 10 000 tokens in 1 s
    }
    vi.advanceTimersByTime(100);
    expect(sends.length).toBeLessThanOrEqual(1_000 / 50 + 2);
    expect(sends.length).toBeGreaterThanOrEqual(1_000 / 50); // flowing all along, not held to the end
    for (let i = 1; i < sends.length; i += 1)
      expect(sends[i]!.atMs - sends[i - 1]!.atMs).toBeGreaterThanOrEqual(50);
    for (const requestId of requestIds) {
      const mine = events().filter(
        (event) => event.name === 'request.chunk' && event.payload.requestId === requestId,
      );
      expect(mine.map((event) => (event.payload as { text: string }).text).join('')).toBe(
        expected.get(requestId),
      );
      expect(mine.reduce((sum, event) => sum + (event.payload as { numTokens: number }).numTokens, 0)).toBe(
        Math.ceil((10_000 - requestIds.indexOf(requestId)) / 3),
      );
    }
    expect(batcher.numPending).toBe(0);
  });

  it('caps a batch and sends a backlog over the following intervals, in order', () => {
    const { batcher, sends, events } = recordingBatcher({ intervalMs: 50, maxBatchSize: 100 });
    const pushed = Array.from({ length: 1_000 }, (_, i) => stats(i));
    pushed.forEach((event) => batcher.push(event));
    vi.advanceTimersByTime(0);
    expect(sends).toHaveLength(1);
    vi.advanceTimersByTime(50 * 9);
    expect(sends).toHaveLength(10);
    expect(sends.every((send) => send.batch.length <= 100)).toBe(true);
    expect(events()).toEqual(pushed);
  });

  it('never merges a chunk across another event of the same request', () => {
    const { batcher, events } = recordingBatcher();
    batcher.push(queued('a'));
    batcher.push(chunk('a', 'x'));
    batcher.push(chunk('b', '1'));
    batcher.push(chunk('a', 'y', 2));
    batcher.push(done('a'));
    batcher.push(chunk('a', 'late'));
    vi.advanceTimersByTime(0);
    expect(events()).toEqual([
      queued('a'),
      chunk('a', 'xy', 3),
      chunk('b', '1'),
      done('a'),
      chunk('a', 'late'),
    ]);
  });

  it('does not mutate the events it was given', () => {
    const { batcher } = recordingBatcher();
    const first = chunk('a', 'x');
    batcher.push(first);
    batcher.push(chunk('a', 'y'));
    expect(first).toEqual(chunk('a', 'x'));
  });

  it('spaces sends by the interval while events keep coming', () => {
    const { batcher, sends } = recordingBatcher({ intervalMs: 50 });
    batcher.push(stats(0));
    vi.advanceTimersByTime(0);
    batcher.push(stats(1));
    vi.advanceTimersByTime(49);
    expect(sends).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(sends).toHaveLength(2);
  });

  it("sends a request's first chunk at once while another stream keeps the batcher busy", () => {
    const { batcher, sends } = recordingBatcher({ intervalMs: 50 });
    batcher.push(chunk('busy', 'a'));
    vi.advanceTimersByTime(0);
    batcher.push(chunk('busy', 'b')); // waits for the interval
    vi.advanceTimersByTime(10);
    expect(sends).toHaveLength(1);
    batcher.push(chunk('new', 'Hel'));
    vi.advanceTimersByTime(0);
    expect(sends).toHaveLength(2);
    expect(sends[1]!.atMs - sends[0]!.atMs).toBe(10);
    expect(sends[1]!.batch).toEqual([chunk('busy', 'b'), chunk('new', 'Hel')]);
    batcher.push(chunk('new', 'lo')); // its later chunks are paced again
    vi.advanceTimersByTime(49);
    expect(sends).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(sends).toHaveLength(3);
  });

  it('treats a request seen again after its done as new (its first chunk goes at once)', () => {
    const { batcher, sends } = recordingBatcher({ intervalMs: 50 });
    batcher.push(chunk('r', 'x'));
    batcher.push(done('r'));
    vi.advanceTimersByTime(0);
    batcher.push(stats(1));
    batcher.push(chunk('r', 'again'));
    vi.advanceTimersByTime(0);
    expect(sends).toHaveLength(2);
  });

  it('drops what is pending and ignores new events once disposed', () => {
    const { batcher, sends } = recordingBatcher();
    batcher.push(stats(0));
    batcher.dispose();
    batcher.push(stats(1));
    vi.advanceTimersByTime(1_000);
    expect(sends).toHaveLength(0);
  });
});

import { describe, expect, it } from 'vitest';
import { syntheticTimelines } from '../../../src-main/telemetry/synthetic/workload';
import type { Timeline } from '../../../src-main/telemetry/timeline/schema';
import { answerFigures } from '../../../src-renderer/views/chat/answer-figures';
import { plainSentence } from '../../../src-renderer/views/chat/plain-sentence';

const [base] = syntheticTimelines(1, { seed: 3 });
const zeroParts = Object.fromEntries(Object.keys(base!.parts).map((k) => [k, 0])) as Timeline['parts'];
/** A 100 ms TTFT made of the given parts, 11 tokens decoded over 500 ms after it, nobody ahead. */
const timeline = (parts: Partial<Timeline['parts']>): Timeline => ({
  ...base!,
  ttftMs: 100,
  e2eMs: 600,
  numOutputTokens: 11,
  unattributedMs: 0,
  numCachedTokens: 0,
  numPromptTokens: 40,
  parts: { ...zeroParts, ...parts },
  diagnosis: { pageMiss: null, slotLoad: null, queuedBehind: [], numQueuedBehind: 0 },
});

describe("the Simple view's sentence under an answer", () => {
  it('leads with the wait the window saw and ends with the speed after it', () => {
    const t = timeline({ prefill: 80, emit: 20 });
    expect(plainSentence(t, answerFigures(t, 130))).toBe(
      'The first word reached the window after 130 ms, most of it reading the 40 tokens of the conversation. Then 20.0 tokens a second.',
    );
  });

  it('says "most" only above half, and the share otherwise', () => {
    const t = timeline({ queue: 45, prefill: 40, emit: 15 });
    expect(plainSentence(t, answerFigures(t, null))).toMatch(
      /^The first word came after 100 ms, the largest part \(45(\.0)?%\) waiting to be picked up \(no other request was ahead of it\)\./,
    );
  });

  it('draws the trip to the window inside "first word", so it can become the largest part', () => {
    const t = timeline({ prefill: 30, emit: 10 });
    // 60 ms of the window's 100 ms wait came after the server flushed its first chunk.
    expect(plainSentence({ ...t, ttftMs: 40 }, answerFigures({ ...t, ttftMs: 40 }, 100))).toMatch(
      /, most of it picking the first word and sending it to the window\./,
    );
  });
});

import { describe, expect, it } from 'vitest';
import { ndjsonSplitter, sseSplitter } from '../../../../src-main/runtime/remote/event-splitters';
import { MalformedEvent } from '../../../../src-main/runtime/remote/protocol-events';

/** Feeds `chunk` until the splitter refuses it; returns the largest it held and what it threw. */
function feedEndlessly(push: (text: string) => string[], held: () => number, chunk: string) {
  let maxHeld = 0;
  for (let i = 0; i < 1_000; i++) {
    try {
      push(chunk);
    } catch (error) {
      return { maxHeld, error, numPushed: i };
    }
    maxHeld = Math.max(maxHeld, held());
  }
  return { maxHeld, error: null, numPushed: 1_000 };
}

describe('event splitters', () => {
  it('split events across reads cut anywhere, CRLF and a CR/LF pair cut between reads included', () => {
    const sse = sseSplitter();
    const text = 'data: {"a":1}\r\n\r\n: keep-alive\n\ndata: x\ndata: y\r\r\ndata: [DONE]\n\n';
    const events = [...text].flatMap((c) => sse.push(c));
    expect(events).toEqual(['{"a":1}', 'x\ny', '[DONE]']);
    expect(sse.rest()).toBeNull();
    const nd = ndjsonSplitter();
    expect([...'{"a":1}\n\n{"b":2}\n{"c"'].flatMap((c) => nd.push(c))).toEqual(['{"a":1}', '{"b":2}']);
    expect(nd.rest()).toBe('{"c"');
  });

  it('an endless SSE line is refused as malformed once it would pass the cap, never held beyond it', () => {
    const maxChars = 256 * 1024;
    const sse = sseSplitter(maxChars);
    sse.push('data: ');
    const { maxHeld, error, numPushed } = feedEndlessly(sse.push, () => sse.numBuffered, 'x'.repeat(16_384));
    expect(error).toBeInstanceOf(MalformedEvent);
    expect((error as Error).message).toMatch(/longer than 256 KiB/);
    expect(maxHeld).toBeLessThanOrEqual(maxChars);
    expect(numPushed).toBe(15); // 6 + 15 × 16,384 fits; the 16th read would not
  });

  it('an event of many short lines with no blank line ends the same way (comments count)', () => {
    const maxChars = 64 * 1024;
    const sse = sseSplitter(maxChars);
    const { maxHeld, error } = feedEndlessly(sse.push, () => sse.numBuffered, ': keep-alive\n'.repeat(100));
    expect(error).toBeInstanceOf(MalformedEvent);
    expect(maxHeld).toBeLessThanOrEqual(maxChars);
  });

  it('an endless NDJSON line is refused the same way', () => {
    const maxChars = 64 * 1024;
    const nd = ndjsonSplitter(maxChars);
    const { maxHeld, error } = feedEndlessly(nd.push, () => nd.numBuffered, '{"x":"' + 'y'.repeat(8_000));
    expect(error).toBeInstanceOf(MalformedEvent);
    expect(maxHeld).toBeLessThanOrEqual(maxChars);
  });
});

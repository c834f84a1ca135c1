import { describe, expect, it } from 'vitest';
import { SseParser } from '../../../src-renderer/bridge/sse-parser';

describe('server-sent events parser', () => {
  it('joins messages split across chunks, skips comments, reads retry', () => {
    const parser = new SseParser();
    expect(parser.feed('retry: 250\n: connected\n\ndata: [1')).toEqual([]);
    expect(parser.feed(',2]\n\ndata: a\r\ndata: b\r\n\r\n')).toEqual(['[1,2]', 'a\nb']);
    expect(parser.retryMs).toBe(250);
  });
});

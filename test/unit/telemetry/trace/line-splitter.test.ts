import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../../../src-main/telemetry/trace/line-splitter';
import type { SplitLine } from '../../../../src-main/telemetry/trace/line-splitter';

function split(chunks: string[], maxLineChars = 100): SplitLine[] {
  const splitter = new LineSplitter(maxLineChars);
  return [...chunks.flatMap((c) => splitter.push(c)), ...splitter.end()];
}

describe('LineSplitter', () => {
  it('numbers lines from 1 across chunk boundaries, with or without a final newline', () => {
    expect(split(['a\nb', 'c\n', 'd'])).toEqual([
      { line: 1, text: 'a' },
      { line: 2, text: 'bc' },
      { line: 3, text: 'd' },
    ]);
    expect(split(['a\n'])).toEqual([{ line: 1, text: 'a' }]);
  });

  it('drops the CR of CRLF line ends, even when CR and LF arrive in different chunks', () => {
    expect(split(['a\r\nb\r', '\nc\r\n'])).toEqual([
      { line: 1, text: 'a' },
      { line: 2, text: 'b' },
      { line: 3, text: 'c' },
    ]);
  });

  it('skips a byte-order mark at the very start only', () => {
    expect(split(['\uFEFFa\n\uFEFFb'])).toEqual([
      { line: 1, text: 'a' },
      { line: 2, text: '\uFEFFb' },
    ]);
  });

  it('reports an overlong line once, without buffering it, and goes on with the next', () => {
    const lines = split(['ok\n', 'x'.repeat(60), 'x'.repeat(60), 'x'.repeat(60), '\nnext\n'], 100);
    expect(lines).toEqual([
      { line: 1, text: 'ok' },
      { line: 2, numCharsOver: 100 },
      { line: 3, text: 'next' },
    ]);
  });
});

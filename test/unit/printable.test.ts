import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { printable, printableTo } from '../../src-main/printable';

describe('printable', () => {
  it('writes terminal commands as escapes: OSC title, CSI, C1, DEL, bidi override', () => {
    expect(printable('\x1b]0;pwned\x07a\x1b[2Jb\x9bc\x7fd\u202ee')).toBe(
      '\\x1b]0;pwned\\x07a\\x1b[2Jb\\x9bc\\x7fd\\u202ee',
    );
  });

  it('keeps newlines and tabs in a report, and none of them in a name', () => {
    expect(printable('a\n\tb\r')).toBe('a\n\tb\\r');
    expect(printable('a\n\tb\r', 'none')).toBe('a\\n\\tb\\r');
  });

  it('leaves ordinary text of any script alone', () => {
    const text = 'Mr. Darcy — née «Bennet», 日本語, emoji 🎉';
    expect(printable(text, 'none')).toBe(text);
  });

  it('escapes a stream chunk by chunk, joining a character cut between chunks', async () => {
    const out = new PassThrough();
    const chunks: string[] = [];
    out.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
    const writer = printableTo(out);
    const bytes = Buffer.from('é\x1b[31m,x\n', 'utf8');
    writer.write(bytes.subarray(0, 1));
    writer.write(bytes.subarray(1));
    await new Promise<void>((resolve) => writer.end(resolve));
    expect(chunks.join('')).toBe('é\\x1b[31m,x\n');
  });
});

import { describe, expect, it } from 'vitest';
import { IncrementalDetokenizer } from '../../../../src-main/runtime/tokenize/detokenizer';

describe('IncrementalDetokenizer', () => {
  it('holds an incomplete character until its bytes complete', () => {
    const bytes = [...Buffer.from('née', 'utf8')];
    const detok = new IncrementalDetokenizer({ decode: (ids) => Buffer.from(ids).toString('utf8') });
    const out = bytes.map((b) => detok.push(b));
    expect(out.join('')).toBe('née');
    expect(out[1]).toBe('');
  });
});

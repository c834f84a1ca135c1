import { describe, expect, it } from 'vitest';
import { clearedSentence, clearSentence } from '../../../src-renderer/views/slots/conversion-cache-words';

describe('the conversion cache panel’s words', () => {
  it('asks to clear with what it frees, what it keeps, and that the next load converts again', () => {
    const cache = {
      folders: [
        { sourcePath: '/m/a.gguf', numBytes: 900e6, isInUse: false },
        { sourcePath: '/m/b.gguf', numBytes: 500e6, isInUse: true },
      ],
      numBytes: 1400e6,
      numFreeableBytes: 900e6,
    };
    const sentence = clearSentence(cache);
    expect(sentence).toMatch(/^Remove 1 converted model and free .+\? 1 in use by a loaded model stays\./);
    expect(sentence).toMatch(/GGUF files are not touched; each model converts again the next time it loads/);
  });

  it('says what a clear did, failures included', () => {
    expect(
      clearedSentence({ numRemoved: 2, numFreedBytes: 1e9, numKeptInUse: 1, problems: ['x: EBUSY'] }),
    ).toMatch(/^Removed 2 converted models, freed .+\. Kept 1 in use\. Could not remove: x: EBUSY$/);
  });
});

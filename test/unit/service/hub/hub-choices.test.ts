import { describe, expect, it } from 'vitest';
import { ggufChoicesOf } from '../../../../src-main/service/hub/hub-choices';

describe("a repository's choices", () => {
  it('offers each GGUF model file with its quantization, a split set once, and counts the rest', () => {
    const file = (path: string, numBytes: number) => ({ path, numBytes, sha256: 'a'.repeat(64) });
    const { choices, numOtherFiles } = ggufChoicesOf([
      file('M-Q4_K_M.gguf', 10),
      file('M-IQ3_XXS.gguf', 8),
      file('m.BF16.gguf', 30),
      file('Q8_0/M-Q8_0-00001-of-00002.gguf', 5),
      file('Q8_0/M-Q8_0-00002-of-00002.gguf', 6),
      file('M-Q2_K-00001-of-00002.gguf', 1), // its second part is missing: not offered
      file('mmproj-M-f16.gguf', 3),
      file('README.md', 1),
    ]);
    expect(choices.map((c) => [c.filePath, c.quant, c.files.length, c.numBytes])).toEqual([
      ['M-Q4_K_M.gguf', 'Q4_K_M', 1, 10],
      ['M-IQ3_XXS.gguf', 'IQ3_XXS', 1, 8],
      ['m.BF16.gguf', 'BF16', 1, 30],
      ['Q8_0/M-Q8_0-00001-of-00002.gguf', 'Q8_0', 2, 11],
    ]);
    expect(numOtherFiles).toBe(3);
  });
});

import { describe, expect, it } from 'vitest';
import { parsePeersArgs } from '../../../bench/peers/args';

describe('peers --model', () => {
  it('takes a .gguf file as the file both engines run, and a folder as a model folder', () => {
    expect(parsePeersArgs(['--model', '/models/Llama-3.2-1B-Q4_K_M.GGUF']).ggufFile).toBe(
      '/models/Llama-3.2-1B-Q4_K_M.GGUF',
    );
    expect(parsePeersArgs(['--model', '/models/ff-austen-mini']).ggufFile).toBeNull();
  });
});

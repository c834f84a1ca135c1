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

describe('peers --spin-threads', () => {
  it('sets the runtime setting through its own parser, and leaves the default when absent', () => {
    expect(parsePeersArgs(['--spin-threads', 'off']).settings).toEqual({ canSpinThreads: false });
    expect(parsePeersArgs(['--spin-threads', 'on']).settings).toEqual({ canSpinThreads: true });
    expect(parsePeersArgs([]).settings).toEqual({});
    expect(() => parsePeersArgs(['--spin-threads', 'no'])).toThrow(/--spin-threads no: .*neither on nor off/);
  });
});

describe('peers --prompt-tokens', () => {
  it('takes a list: one llama.cpp section per length, the workload at the first', () => {
    const args = parsePeersArgs(['--prompt-tokens', '128,2000']);
    expect(args.promptTokenCounts).toEqual([128, 2000]);
    expect(args.workload.numPromptTokens).toBe(128);
    expect(() => parsePeersArgs(['--prompt-tokens', '128,x'])).toThrow(/--prompt-tokens "x"/);
  });
});

import { describe, expect, it } from 'vitest';
import { engineTargets } from '../../../bench/peers/engine-targets';
import type { LlamaSection } from '../../../bench/peers/llama-report';

const samples = (itlMs: number[]) => ({ ttftMs: [50], itlMs });
const pair = (precision: 'f16' | 'q8' | 'q4', oursItl: number, floorItl: number, llamaItl: number) => ({
  precision,
  status: 'ok' as const,
  ours: samples([oursItl, oursItl, oursItl + 9]),
  floor: samples([floorItl, floorItl, floorItl + 9]),
  runPath: 'bound' as const,
  llama: samples([llamaItl, llamaItl, llamaItl + 9]),
  greedyCheck: { numSame: 8, numCompared: 8, firstDifferentAt: null },
  agreement: { numSame: 8, numCompared: 8 },
  weightBytesPerToken: { ours: 1, llama: 1 },
  ggufMadeMs: null,
});
const section = (
  numThreads: number,
  numPromptTokens: number,
  q4: [number, number, number],
): LlamaSection => ({
  engine: { version: 'test' },
  numThreads,
  numPromptTokens,
  canSpinThreads: true,
  bandwidth: null,
  pairs: [pair('q4', ...q4), pair('q8', 10, 10, 10), pair('f16', 21, 20, 10)],
});

describe('engineTargets', () => {
  it('judges ITL over the floor per precision × thread count, the 2k-prompt ratios and the growth, from medians', () => {
    const targets = engineTargets(
      [section(1, 128, [8, 6.4, 6]), section(2, 128, [7, 7, 7]), section(1, 2000, [20, 18, 15])],
      2,
    );
    expect(targets.map((t) => [t.name, t.measured, t.isMet])).toEqual([
      ['engine_over_floor_itl_q4_1_thread', 1.25, false],
      ['engine_over_floor_itl_q8_1_thread', 1, true],
      ['engine_over_floor_itl_f16_1_thread', 1.05, true],
      ['engine_over_floor_itl_q4_all_cores', 1, true],
      ['engine_over_floor_itl_q8_all_cores', 1, true],
      ['engine_over_floor_itl_f16_all_cores', 1.05, true],
      ['decode_itl_ours_over_llamacpp_q4_2k', 20 / 15, false],
      ['decode_itl_ours_over_llamacpp_q8_2k', 1, false],
      // (20 − 8) ÷ (15 − 6)
      ['itl_growth_128_to_2k_ours_over_llamacpp', 12 / 9, false],
    ]);
    expect(targets[0]!.how).toContain('~128-token prompt');
    expect(targets.at(-1)!.how).toContain('2000-token prompt');
  });

  it('says which flag would run a target it cannot judge', () => {
    const targets = engineTargets([section(1, 128, [8, 8, 8])], 2);
    const byName = Object.fromEntries(targets.map((t) => [t.name, t]));
    expect(byName['engine_over_floor_itl_q4_all_cores']).toMatchObject({ measured: null, isMet: null });
    expect(byName['engine_over_floor_itl_q4_all_cores']!.how).toContain('--threads did not include 2');
    expect(byName['decode_itl_ours_over_llamacpp_q4_2k']!.how).toContain(
      '--prompt-tokens did not include 2000',
    );
    expect(byName['itl_growth_128_to_2k_ours_over_llamacpp']).toMatchObject({ measured: null, isMet: null });
  });
});

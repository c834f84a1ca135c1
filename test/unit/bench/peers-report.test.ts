import { describe, expect, it } from 'vitest';
import { llamaSectionJson, llamaTargets } from '../../../bench/peers/llama-report';
import { peersTargets, servingTargets } from '../../../bench/peers/targets';

describe('peers: targets from one run', () => {
  const samples = (ttftMs: number[], itlMs: number[]) => ({ ttftMs, itlMs });
  const turns = [1, 2].map((turn) => ({
    turn,
    numPromptTokens: 10 * turn,
    numCachedTokens: 0,
    oursTtftMs: 20,
    peerTtftMs: 100,
    floorFullPrefillMs: 90,
  }));

  it('compares medians: ours/floor TTFT and ITL, last-turn ours/peer TTFT, concurrent/sequential throughput', () => {
    const targets = peersTargets({
      single: { ours: samples([10, 11, 30], [5, 5, 6]), floor: samples([10, 10, 12], [5, 5, 5]), peer: null },
      turns,
      oursTokensPerS: 300,
      peerTokensPerS: 100,
    });
    expect(targets.map((t) => [t.name, t.measured, t.isMet])).toEqual([
      ['single_turn_ttft_ours_over_floor', 1.1, true],
      ['single_turn_itl_ours_over_floor', 1, true],
      ['turn_2_ttft_ours_over_peer', 0.2, true],
      ['concurrent_throughput_ours_over_peer_sequential', 3, true],
    ]);
  });

  it('says n/a rather than guessing when the peer could not run', () => {
    const targets = peersTargets({
      single: { ours: samples([10], [5]), floor: samples([5], [5]), peer: null },
      turns: turns.map((t) => ({ ...t, peerTtftMs: null })),
      oursTokensPerS: 300,
      peerTokensPerS: null,
    });
    expect(targets[0]).toMatchObject({ measured: 2, isMet: false });
    expect(targets.slice(2).map((t) => [t.measured, t.isMet])).toEqual([
      [null, null],
      [null, null],
    ]);
  });
});

describe('peers: llama.cpp targets from one run', () => {
  const samples = (ttftMs: number[], itlMs: number[]) => ({ ttftMs, itlMs });
  const pair = (precision: 'f16' | 'q8' | 'q4', oursItl: number, llamaItl: number) => ({
    precision,
    status: 'ok' as const,
    ours: samples([60, 70, 80], [oursItl, oursItl, oursItl + 5]),
    floor: samples([55], [oursItl]),
    runPath: 'bound' as const,
    llama: samples([100, 100, 120], [llamaItl, llamaItl]),
    greedyCheck: { numSame: 32, numCompared: 32, firstDifferentAt: null },
    agreement: { numSame: 30, numCompared: 32 },
    weightBytesPerToken: { ours: 400e6, llama: 200e6 },
    ggufMadeMs: null,
  });

  it('names the issue’s targets: decode and prefill at one thread, q4 decode at every core, First Frame ÷ llama.cpp medians', () => {
    const section = (numThreads: number, q4Itl: number) => ({
      engine: { version: 'test' },
      numThreads,
      numPromptTokens: 128,
      canSpinThreads: true,
      bandwidth: null,
      pairs: [pair('f16', 30, 25), pair('q8', 10, 20), pair('q4', q4Itl, 10)],
    });
    const targets = llamaTargets([section(2, 8), section(1, 12)], 2);
    expect(targets.map((t) => [t.name, t.measured, t.isMet])).toEqual([
      ['decode_itl_ours_over_llamacpp_q4', 1.2, false],
      ['decode_itl_ours_over_llamacpp_q8', 0.5, true],
      ['decode_itl_ours_over_llamacpp_f16', 1.2, true],
      ['prefill_ours_over_llamacpp_q4', 0.7, true],
      ['prefill_ours_over_llamacpp_q8', 0.7, true],
      ['prefill_ours_over_llamacpp_f16', 0.7, true],
      ['decode_itl_ours_over_llamacpp_q4_all_threads', 0.8, true],
    ]);
    expect(targets[0]!.how).toContain('1 thread(s)');
    expect(targets.at(-1)!.how).toContain('2 thread(s)');
  });

  it('says whether First Frame’s threads spun, as the setting had it', () => {
    const section = (numThreads: number, canSpinThreads: boolean) => ({
      engine: { version: 'test' },
      numThreads,
      numPromptTokens: 128,
      canSpinThreads,
      bandwidth: null,
      pairs: [pair('q4', 8, 10)],
    });
    const at = (s: ReturnType<typeof section>) => llamaTargets([s], s.numThreads).at(-1)!.how;
    expect(at(section(2, true))).toContain('2 threads, spinning while a run computes (--spin-threads on)');
    expect(at(section(2, false))).toContain('2 threads, sleeping between kernels (--spin-threads off)');
    expect(at(section(1, true))).toContain('1 thread (no pool threads to spin or sleep)');
    expect(llamaSectionJson(section(2, false)).first_frame_threads).toContain('--spin-threads off');
  });

  it('says why a target has no number: a precision not run, or no run at every core', () => {
    const targets = llamaTargets(
      [
        {
          engine: { version: 'test' },
          numThreads: 1,
          numPromptTokens: 128,
          canSpinThreads: true,
          bandwidth: null,
          pairs: [pair('f16', 30, 25), { precision: 'q4', status: 'skipped', reason: 'no file' }],
        },
      ],
      2,
    );
    expect(targets[0]).toMatchObject({
      name: 'decode_itl_ours_over_llamacpp_q4',
      measured: null,
      isMet: null,
    });
    expect(targets[0]!.how).toContain('not run: no file');
    expect(targets[1]!.how).toContain('not run (--precisions)');
    expect(targets.at(-1)).toMatchObject({ measured: null, isMet: null });
    expect(targets.at(-1)!.how).toContain('--threads did not include 2');
  });

  it('reports weight bytes per token ÷ ITL against the measured read bandwidth', () => {
    const json = llamaSectionJson({
      engine: { version: 'test' },
      numThreads: 1,
      numPromptTokens: 128,
      canSpinThreads: true,
      bandwidth: { bytesPerS: 20e9, boundary: 'test' },
      pairs: [pair('f16', 20, 10)],
    });
    const roofline = (json.precisions[0] as { roofline: Record<string, { achieved_gb_per_s: number }> })
      .roofline;
    expect(roofline['First Frame']!.achieved_gb_per_s).toBeCloseTo(20);
    expect(roofline['llama.cpp']!.achieved_gb_per_s).toBeCloseTo(20);
  });
});

describe('peers: a GGUF served in its own process', () => {
  const figures = {
    oursServingRssBytes: 2.4e9,
    peerServingRssBytes: 1.5e9,
    dataFolderBytes: 1.5e9,
    ggufBytes: 0.8e9,
    oursColdFirstTokenMs: 60_000,
    oursWarmFirstTokenMs: 12_000,
    peerFirstTokenMs: 2_000,
    conversionPeakRssBytes: 2 ** 29,
  };

  it('judges memory and disk against llama.cpp and the file, both starts against llama.cpp open, the conversion in GiB', () => {
    expect(servingTargets(figures).map((t) => [t.name, t.measured, t.isMet])).toEqual([
      ['serving_rss_ours_over_llama_cpp', 1.6, false],
      ['data_folder_bytes_over_gguf', 1.875, false],
      ['cold_first_token_over_llama_cpp_load', 30, false],
      ['warm_first_token_over_llama_cpp_load', 6, false],
      ['conversion_peak_rss_gib', 0.5, true],
    ]);
  });

  it('says n/a where llama.cpp or First Frame could not run', () => {
    const targets = servingTargets({ ...figures, peerServingRssBytes: null, peerFirstTokenMs: null });
    expect(targets.filter((t) => t.measured === null).map((t) => t.name)).toEqual([
      'serving_rss_ours_over_llama_cpp',
      'cold_first_token_over_llama_cpp_load',
      'warm_first_token_over_llama_cpp_load',
    ]);
    expect(targets.every((t) => (t.measured === null) === (t.isMet === null))).toBe(true);
  });
});

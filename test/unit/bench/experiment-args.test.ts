import { describe, expect, it } from 'vitest';
import { parseExperimentArgs, parseVary, parseWorkload } from '../../../bench/experiment/args';

describe('bench experiment: arms and workloads from the command line', () => {
  it('makes one arm per value of any setting, each checked by the setting’s own schema', () => {
    expect(parseVary('seats=2,4', 'm').arms).toEqual([
      { label: 'seats=2', value: '2', patch: { maxSeats: 2 } },
      { label: 'seats=4', value: '4', patch: { maxSeats: 4 } },
    ]);
    expect(parseVary('prefill-chunk=off,64', 'm').arms.map((a) => a.patch)).toEqual([
      { prefillChunkTokens: null },
      { prefillChunkTokens: 64 },
    ]);
    // Values read as the flag does: the K/V budget in MB.
    expect(parseVary('kv-budget-mb=64,128', 'm').arms[1]!.patch).toEqual({
      kvBudgetBytes: 128 * 1024 * 1024,
    });
  });

  it('varies a model variant as a model reference name:variant', () => {
    expect(parseVary('variant=q4,fp16', 'tiny').arms.map((a) => a.patch)).toEqual([
      { defaultModel: 'tiny:q4' },
      { defaultModel: 'tiny:fp16' },
    ]);
  });

  it('refuses an unknown setting, a single value, repeats and out-of-range values with what to write', () => {
    expect(() => parseVary('seatz=2,4', 'm')).toThrow(/no runtime setting is called "seatz"/);
    expect(() => parseVary('seats=2', 'm')).toThrow(/at least two values/);
    expect(() => parseVary('seats=2,2', 'm')).toThrow(/repeat/);
    expect(() => parseVary('seats=2,900', 'm')).toThrow(/--seats 900/);
  });

  it('reads burst, poisson and trace workloads and defaults to two bursts of requests', () => {
    expect(parseWorkload('burst:8')).toEqual({ kind: 'burst', burstSize: 8 });
    expect(parseWorkload('poisson:2.5')).toEqual({ kind: 'poisson', ratePerS: 2.5 });
    expect(parseWorkload('trace:/tmp/t.jsonl')).toEqual({ kind: 'trace', path: '/tmp/t.jsonl' });
    expect(() => parseWorkload('burst:0')).toThrow(/burst:N, poisson:RATE or trace:FILE/);
    const config = parseExperimentArgs([
      '--vary',
      'seats=2,4',
      '--workload',
      'burst:8',
      '--threads',
      '1',
      '--no-store',
    ]);
    expect(config).toMatchObject({ numRequests: 16, dataDir: null, base: { numThreads: 1 } });
    expect(() => parseExperimentArgs(['--workload', 'burst:8'])).toThrow(/--vary SETTING=A,B is required/);
  });
});

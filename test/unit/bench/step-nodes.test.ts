import { describe, expect, it } from 'vitest';
import { kernelMsOfRuns } from '../../../bench/step-profile/past-nodes';

const run = (ts: number, dur: number) => ({ cat: 'Session', name: 'model_run', ts, dur });
const kernel = (node: string, op: string, ts: number, durUs: number) => ({
  cat: 'Node',
  name: `${node}_kernel_time`,
  ts,
  dur: durUs,
  args: { op_name: op },
});

describe('kernelMsOfRuns', () => {
  it('sums each step’s kernels by operator and node inside the chosen runs only, median over steps', () => {
    const events = [
      run(0, 100),
      kernel('prefill_attn', 'GroupQueryAttention', 10, 90_000),
      run(200, 100),
      kernel('a', 'GroupQueryAttention', 210, 1000),
      kernel('b', 'GroupQueryAttention', 220, 2000),
      kernel('m', 'MatMulNBits', 230, 500),
      run(400, 100),
      kernel('a', 'GroupQueryAttention', 410, 3000),
      kernel('b', 'GroupQueryAttention', 420, 2000),
      kernel('m', 'MatMulNBits', 430, 500),
    ];
    const profile = kernelMsOfRuns(events, [1, 2]);
    expect(Object.keys(profile.opMs)).toEqual(['GroupQueryAttention', 'MatMulNBits']);
    expect(profile.opMs.MatMulNBits).toBe(0.5);
    expect(profile.nodeMs.b).toBe(2);
    expect(profile.nodeMs.prefill_attn).toBeUndefined();
    expect(profile.kernelMsP50).toBeGreaterThanOrEqual(3.5);
  });
});

import { describe, expect, it } from 'vitest';
import { arrivalsOf } from '../../../bench/load/arrivals';
import {
  formatLengthSpec,
  independentPairs,
  jointPairs,
  lengthSampler,
  parseLengthSpec,
} from '../../../bench/load/lengths';
import { planRequests } from '../../../bench/load/plan';
import { prng } from '../../../src-main/telemetry/synthetic/workload';

describe('load lab: lengths, arrivals and the request plan', () => {
  it('parses length specs and says what to write when one is wrong', () => {
    expect(parseLengthSpec('fixed:32', 'output-tokens')).toEqual({ kind: 'fixed', numTokens: 32 });
    expect(parseLengthSpec('uniform:8-64', 'prompt-tokens')).toEqual({
      kind: 'uniform',
      minTokens: 8,
      maxTokens: 64,
    });
    expect(parseLengthSpec('run:abc-1', 'prompt-tokens')).toEqual({ kind: 'run', runId: 'abc-1' });
    for (const bad of ['fixed:0', 'uniform:9-3', 'gauss:1', 'run:'])
      expect(() => parseLengthSpec(bad, 'prompt-tokens')).toThrow(/--prompt-tokens .*fixed:N, uniform:A-B/);
    expect(formatLengthSpec(parseLengthSpec('uniform:8-64', 'x'))).toBe('uniform:8-64');
  });

  it('samples uniform lengths inclusively and run lengths from the stored pool', () => {
    const uniform = lengthSampler({ kind: 'uniform', minTokens: 3, maxTokens: 5 });
    expect([0, 0.34, 0.67, 0.9999].map(uniform)).toEqual([3, 4, 5, 5]);
    const pooled = lengthSampler({ kind: 'run', runId: 'r' }, [0, 10, 20]);
    expect([0, 0.6].map(pooled)).toEqual([10, 20]);
    expect(() => lengthSampler({ kind: 'run', runId: 'r' }, [])).toThrow(/no stored requests/);
  });

  it('replays a run or trace as whole requests: every planned prompt keeps its own output length', () => {
    const pool = [
      { numPromptTokens: 4000, numOutputTokens: 8 },
      { numPromptTokens: 30, numOutputTokens: 900 },
      { numPromptTokens: 500, numOutputTokens: 100 },
    ];
    const plan = planRequests({
      count: 300,
      multiTurnShare: 0,
      maxTurns: 8,
      lengths: jointPairs(pool, 'test run'),
      uniform: prng(5),
      tag: 'j',
      seedBase: 0,
    });
    const pairs = new Set(pool.map((p) => `${p.numPromptTokens}/${p.numOutputTokens}`));
    expect(plan.every((p) => pairs.has(`${p.numUserTokens}/${p.maxTokens}`))).toBe(true);
    expect(new Set(plan.map((p) => p.numUserTokens)).size).toBe(3);
    expect(() => jointPairs([], 'empty run')).toThrow(/empty run has no requests/);
  });

  it('spaces constant arrivals 1/rate apart and gives Poisson gaps with the right mean, fixed by the seed', () => {
    const constant = arrivalsOf('constant', 4, { ratePerS: 4, burstSize: 1, uniform: prng(1) });
    expect(constant).toEqual({ kind: 'open', offsetsMs: [0, 250, 500, 750] });
    const poisson = arrivalsOf('poisson', 2000, { ratePerS: 10, burstSize: 1, uniform: prng(3) });
    if (poisson.kind !== 'open') throw new Error('open loop expected');
    const meanGapMs = poisson.offsetsMs.at(-1)! / (poisson.offsetsMs.length - 1);
    expect(meanGapMs).toBeGreaterThan(90);
    expect(meanGapMs).toBeLessThan(110);
    expect(arrivalsOf('poisson', 2000, { ratePerS: 10, burstSize: 1, uniform: prng(3) })).toEqual(poisson);
    expect(arrivalsOf('sync', 5, { ratePerS: 1, burstSize: 9, uniform: prng(1) })).toEqual({
      kind: 'closed',
      groupSize: 1,
    });
    expect(arrivalsOf('burst', 5, { ratePerS: 1, burstSize: 9, uniform: prng(1) })).toEqual({
      kind: 'closed',
      groupSize: 9,
    });
  });

  it('plans follow-up turns of earlier conversations at about the asked share, never past 8 turns', () => {
    const options = {
      count: 400,
      multiTurnShare: 0.3,
      maxTurns: 8,
      lengths: independentPairs(
        lengthSampler({ kind: 'fixed', numTokens: 20 }),
        lengthSampler({ kind: 'fixed', numTokens: 5 }),
      ),
      tag: 't',
      seedBase: 1000,
    };
    const plan = planRequests({ ...options, uniform: prng(9) });
    const followUps = plan.filter((p) => p.turn > 1);
    expect(followUps.length / plan.length).toBeGreaterThan(0.22);
    expect(followUps.length / plan.length).toBeLessThan(0.38);
    for (const p of followUps) {
      const parent = plan[p.parentIndex!]!;
      expect(parent.index).toBeLessThan(p.index);
      expect(parent.conversationId).toBe(p.conversationId);
      expect(parent.turn).toBe(p.turn - 1);
    }
    expect(Math.max(...plan.map((p) => p.turn))).toBeLessThanOrEqual(8);
    expect(new Set(plan.map((p) => p.textSeed)).size).toBe(400);
    expect(planRequests({ ...options, uniform: prng(9) })).toEqual(plan);
    expect(planRequests({ ...options, multiTurnShare: 0, uniform: prng(9) }).every((p) => p.turn === 1)).toBe(
      true,
    );
  });
});

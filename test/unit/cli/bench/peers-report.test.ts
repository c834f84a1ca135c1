import { describe, expect, it } from 'vitest';
import { peersTargets } from '../../../../src-main/cli/bench/peers/targets';

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

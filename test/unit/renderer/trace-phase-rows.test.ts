import { describe, expect, it } from 'vitest';
import type { BoundaryPhases } from '../../../src-main/telemetry/report/boundary-phases';
import { dominantWordsOf } from '../../../src-renderer/views/traces/dominant-words';
import { phaseRowsOf } from '../../../src-renderer/views/traces/phase-rows';

/** A client-boundary breakdown: 100 ms to the first word (4 of it unexplained), 15 ms of stream. */
function clientPhases(): BoundaryPhases {
  return {
    boundary: 'client',
    numRequests: 3,
    meanTtftMs: 100,
    meanE2eMs: 115,
    meansMs: {
      network_in: 5,
      gateway: 30,
      queue: 20,
      prefill: 30,
      first_decode: 6,
      network_to_first: 5,
      stream: 15,
    },
    // The report's own column: the first six as shares of TTFT, the stream of E2E (adds to 109%).
    shares: {
      network_in: 0.05,
      gateway: 0.3,
      queue: 0.2,
      prefill: 0.3,
      first_decode: 0.06,
      network_to_first: 0.05,
      stream: 15 / 115,
    },
    nestedMeansMs: {
      network_in: {},
      gateway: { inbox: 2, route: 3, slotLoad: 25 },
      queue: { queue: 20, requeue: 0, lostPrefill: 0, activation: 0 },
      prefill: { contextLookup: 1, prefill: 29 },
      first_decode: { emit: 6 },
      network_to_first: {},
      stream: {},
    },
    unattributedMeanMs: 4,
    dominantTtft: {
      phase: 'gateway',
      meanMs: 30,
      share: 0.3,
      nextTest: 'look at what happens before the queue (behind a gateway, also its authentication)',
      part: 'slotLoad',
      partNextTest: 'keep the model loaded',
    },
    dominantE2e: null,
  };
}

describe('trace phase rows', () => {
  it('takes every share of one total, so the shares add to 100% (the report’s column mixes TTFT and E2E)', () => {
    const rows = phaseRowsOf(clientPhases());
    const total = rows.reduce((sum, row) => sum + (row.share ?? 0), 0);
    expect(total).toBeCloseTo(1, 9);
    expect(rows.find((row) => row.key === 'stream')!.share).toBeCloseTo(15 / 115, 9);
  });

  it('shows unexplained time as a row of its own, before the stream', () => {
    const keys = phaseRowsOf(clientPhases()).map((row) => row.key);
    expect(keys.slice(-2)).toEqual(['unattributed', 'stream']);
  });

  it('names phases and parts in plain words, never by identifier', () => {
    const rows = phaseRowsOf(clientPhases());
    const printed = rows.flatMap((row) => [row.label, ...row.parts.map((p) => p.label)]).join(' | ');
    expect(printed).not.toMatch(/network_in|first_decode|network_to_first|slotLoad|gateway|contextLookup/);
    expect(rows.find((row) => row.key === 'gateway')!.parts.map((p) => p.label)).toEqual([
      'waiting · to be picked up',
      'reading your prompt · preparing it',
      'loading the model',
    ]);
  });

  it('leaves parts with no time out of the parts inside', () => {
    const queue = phaseRowsOf(clientPhases()).find((row) => row.key === 'queue')!;
    expect(queue.parts.map((p) => p.label)).toEqual(['waiting · for a turn']);
  });

  it('keeps a phase the boundary cannot see as not seen, outside the total', () => {
    const phases = clientPhases();
    phases.meansMs.network_in = null;
    const rows = phaseRowsOf(phases);
    expect(rows.find((row) => row.key === 'network_in')!.share).toBeNull();
    expect(rows.reduce((sum, row) => sum + (row.share ?? 0), 0)).toBeCloseTo(1, 9);
  });
});

describe('what took longest, in words', () => {
  it('never says gateway: it names the phase plainly and gives the largest part’s advice', () => {
    const words = dominantWordsOf(clientPhases())!;
    expect(words).not.toMatch(/gateway/i);
    expect(words).toBe(
      'Getting ready took longest before the first word (30.0 ms mean, 30.0% of the wait for it). Inside it, loading the model took most: keep the model loaded.',
    );
  });
});

import { describe, expect, it } from 'vitest';
import { buildReport } from '../../../../src-main/telemetry/report/build-report';
import { timeline } from './timeline-fixture';

describe('conditioning by class', () => {
  const set = () => [
    ...Array.from({ length: 25 }, (_, i) => timeline({ numPromptTokens: 50, parts: { queue: 10 + i } })),
    ...Array.from({ length: 5 }, () =>
      timeline({ numPromptTokens: 3_000, numCachedTokens: 2_000, parts: { prefill: 900 } }),
    ),
  ];

  it('reports statistics per prompt band for cells at or above the minimum count', () => {
    const cells = buildReport(set(), { minCellCount: 20 }).conditioning.promptBand;
    const short = cells.find((c) => c.label === '0–127 tokens')!;
    expect(short).toMatchObject({
      numRequests: 25,
      isTooSmall: false,
      ttftP50Ms: 22,
      ttftP95Ms: 33,
      dominantPhase: 'queue',
    });
  });

  it('keeps a cell under the minimum count, says it is too small and reports no statistics', () => {
    const cells = buildReport(set(), { minCellCount: 20 }).conditioning.promptBand;
    const long = cells.find((c) => c.label === '2048–8191 tokens')!;
    expect(long).toMatchObject({
      numRequests: 5,
      isTooSmall: true,
      ttftP95Ms: null,
      meanTtftMs: null,
      dominantPhase: null,
    });
    expect(cells.map((c) => c.label)).toEqual(['0–127 tokens', '2048–8191 tokens']);
  });

  it('conditions on cache state, model and finish reason too', () => {
    const c = buildReport(set(), { minCellCount: 1 }).conditioning;
    expect(c.cache.map((x) => [x.label, x.numRequests])).toEqual([
      ['uncached', 25],
      ['cached', 5],
    ]);
    expect(c.model.map((x) => x.label)).toEqual(['model-a']);
    expect(c.finishReason.map((x) => x.label)).toEqual(['stop']);
  });

  it('uses the prompt band edges it is given', () => {
    const cells = buildReport(set(), { minCellCount: 1, promptBandEdges: [0, 1_000] }).conditioning
      .promptBand;
    expect(cells.map((c) => c.label)).toEqual(['0–999 tokens', '≥1000 tokens']);
  });
});

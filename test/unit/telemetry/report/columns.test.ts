import { describe, expect, it } from 'vitest';
import {
  ownItlP95Ms,
  SCALAR_FIELDS,
  SCALAR_INDEX,
  toReportColumns,
  writeScalars,
} from '../../../../src-main/telemetry/report';
import { nearestRankSorted } from '../../../../src-main/telemetry/report/nearest-rank';
import { TTFT_PARTS } from '../../../../src-main/telemetry/timeline';
import { timeline } from './timeline-fixture';

describe('report columns', () => {
  it('write every scalar under its own name, parts included (the packed-row layout)', () => {
    const parts = {
      inbox: 1,
      route: 2,
      slotLoad: 3,
      queue: 4,
      activation: 5,
      contextLookup: 6,
      prefill: 7,
      emit: 8,
    };
    const t = timeline({
      parts,
      gapsMs: [3, 1, 2],
      numPromptTokens: 900,
      numCachedTokens: 300,
      isColdSlot: true,
      clientTtftMs: 99,
    });
    const row = new Float64Array(SCALAR_FIELDS.length);
    writeScalars(t, row, 0);
    for (const part of TTFT_PARTS) expect(row[SCALAR_INDEX[part]], part).toBe(t.parts[part]);
    expect(row[SCALAR_INDEX.ttftMs]).toBe(36);
    expect(row[SCALAR_INDEX.clientTtftMs]).toBe(99);
    expect(row[SCALAR_INDEX.numCachedTokens]).toBe(300);
    expect(row[SCALAR_INDEX.isColdSlot]).toBe(1);
    expect(row[SCALAR_INDEX.ownItlP95Ms]).toBe(3);
  });

  it('mark absent values NaN in columns: no first token, no client report, no gaps', () => {
    const columns = toReportColumns([timeline({ hasFirstToken: false })]);
    expect(columns.values.ttftMs[0]).toBeNaN();
    expect(columns.values.clientTtftMs[0]).toBeNaN();
    expect(columns.values.ownItlP95Ms[0]).toBeNaN();
    expect(columns.itlGapsMs).toHaveLength(0);
  });

  it("take each request's own p95 gap by nearest rank, short or long", () => {
    for (const n of [1, 5, 19, 20, 21, 64, 500]) {
      const gaps = Array.from({ length: n }, (_, i) => ((i * 7919) % 101) + 0.5);
      expect(ownItlP95Ms(gaps), `${n} gaps`).toBe(
        nearestRankSorted(
          [...gaps].sort((a, b) => a - b),
          0.95,
        ),
      );
    }
    expect(ownItlP95Ms([])).toBeNaN();
  });
});

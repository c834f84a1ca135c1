import { describe, expect, it } from 'vitest';
import {
  ownItlP95Ms,
  SCALAR_FIELDS,
  SCALAR_INDEX,
  toReportColumns,
  writeScalars,
} from '../../../../src-main/telemetry/report/columns';
import { nearestRankSorted } from '../../../../src-main/telemetry/report/nearest-rank';
import { TTFT_PARTS } from '../../../../src-main/telemetry/timeline/parts';
import { FINISH_REASONS } from '../../../../src-main/telemetry/timeline/schema';
import type { Timeline } from '../../../../src-main/telemetry/timeline/schema';
import type { ScalarField } from '../../../../src-main/telemetry/report/columns';
import { timeline } from './timeline-fixture';

describe('report columns', () => {
  it('write every scalar under its own name, parts included: each field a distinct value read back from its column', () => {
    // Every field and every part gets a value no other has, so two fields written to each
    // other's columns (even two parts a fixture leaves at 0, like requeue and lostPrefill) fail.
    const parts = Object.fromEntries(TTFT_PARTS.map((part, i) => [part, 1_000 + i])) as Timeline['parts'];
    const own = {
      arrivedAt: 11,
      finishedAt: 12,
      e2eMs: 13,
      ttftMs: 14,
      clientTtftMs: 15,
      unattributedMs: 16,
      numPromptTokens: 17,
      numCachedTokens: 18,
      numOutputTokens: 19,
      clientE2eMs: 20,
      networkInMs: 21,
    };
    const t: Timeline = { ...timeline({ gapsMs: [3, 1, 2] }), ...own, parts, isColdSlot: true };
    const row = new Float64Array(SCALAR_FIELDS.length).fill(-1);
    writeScalars(t, row, 0);
    for (const [field, value] of Object.entries({ ...own, ...parts }))
      expect(row[SCALAR_INDEX[field as ScalarField]], field).toBe(value);
    expect(row[SCALAR_INDEX.isColdSlot]).toBe(1);
    expect(row[SCALAR_INDEX.ownItlP95Ms]).toBe(3);
    expect(row[SCALAR_INDEX.finishCode]).toBe(FINISH_REASONS.indexOf('stop'));
    expect(row[SCALAR_INDEX.isRemote]).toBe(0);
    expect([...row].filter((value) => value === -1)).toEqual([]);
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

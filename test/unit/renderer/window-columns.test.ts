import { describe, expect, it } from 'vitest';
import { SCALAR_FIELDS, toReportColumns } from '../../../src-main/telemetry/report/columns';
import type { ReportColumns } from '../../../src-main/telemetry/report/columns';
import { syntheticTimelines } from '../../../src-main/telemetry/synthetic/workload';
import { WindowColumns } from '../../../src-renderer/store/window-columns';

const plain = (c: ReportColumns) => ({
  numRequests: c.numRequests,
  modelIds: [...c.modelIds],
  gaps: [...c.itlGapsMs],
  values: Object.fromEntries(SCALAR_FIELDS.map((f) => [f, [...c.values[f]]])),
});

describe('incremental window columns', () => {
  it('match a fresh columns pass after appends, drops past capacity and a patched row', () => {
    const all = syntheticTimelines(260, { models: ['a', 'b'] });
    const columns = new WindowColumns(100);
    columns.replace(all.slice(0, 40));
    for (let at = 40; at < 250; at += 30) columns.append(all.slice(at, at + 30));
    let window = all.slice(150, 250);
    const patched = { ...window[7]!, clientTtftMs: 123 };
    window = window.map((t, i) => (i === 7 ? patched : t));
    columns.setRow(7, patched);
    expect(plain(columns.columns())).toEqual(plain(toReportColumns(window)));
  });

  it('a batch larger than the capacity keeps only its newest rows', () => {
    const all = syntheticTimelines(30);
    const columns = new WindowColumns(10);
    columns.append(all);
    expect(plain(columns.columns())).toEqual(plain(toReportColumns(all.slice(-10))));
  });
});

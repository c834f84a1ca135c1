import { describe, expect, it } from 'vitest';
import { SCALAR_FIELDS } from '../../../../src-main/telemetry/report/columns';
import { canonicalTimeline } from '../../../../src-main/telemetry/timeline/canonical';
import { TIMELINE_COLUMNS } from '../../../../src-main/telemetry/timeline/columns';
import { TTFT_PARTS } from '../../../../src-main/telemetry/timeline/parts';
import { TimelineSchema } from '../../../../src-main/telemetry/timeline/schema';
import { timeline } from '../report/timeline-fixture';

const SCHEMA_KEYS = Object.keys(TimelineSchema.shape);
/** Fields that are not flat: the store keeps them as JSON and blobs, CSV leaves them out. */
const NOT_FLAT = ['transitions', 'parts', 'itlMs', 'diagnosis', 'remote'];

describe("the timeline's one declaration", () => {
  it('gives every flat schema field exactly one column, and every part one column', () => {
    const ownFields = TIMELINE_COLUMNS.flatMap((c) => (typeof c.field === 'string' ? [c.field] : []));
    expect([...ownFields].sort()).toEqual(SCHEMA_KEYS.filter((k) => !NOT_FLAT.includes(k)).sort());
    const partFields = TIMELINE_COLUMNS.flatMap((c) =>
      c.field !== null && typeof c.field === 'object' ? [c.field.part] : [],
    );
    expect(partFields).toEqual([...TTFT_PARTS]);
    expect(new Set(TIMELINE_COLUMNS.map((c) => c.name)).size).toBe(TIMELINE_COLUMNS.length);
  });

  it('builds canonical timelines with exactly the schema fields, in schema order (one hidden class)', () => {
    // canonicalTimeline is an object literal for V8's sake; this keeps it equal to the schema.
    expect(Object.keys(canonicalTimeline(timeline()))).toEqual(SCHEMA_KEYS);
  });

  it('packs report rows only from schema fields, parts and three per-request derivations', () => {
    const derived = ['finishCode', 'ownItlP95Ms', 'isRemote'];
    for (const field of SCALAR_FIELDS) expect([...SCHEMA_KEYS, ...TTFT_PARTS, ...derived]).toContain(field);
  });
});

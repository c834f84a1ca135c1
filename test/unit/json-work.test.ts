import { describe, expect, it } from 'vitest';
import { JsonWorkMeter, jsonTextWorkProblem } from '../../src-main/json-work';
import type { JsonWorkLimits } from '../../src-main/json-work';

const LIMITS = { maxDepth: 4, maxItems: 10 };
const bytes = (text: string) => Buffer.from(text, 'utf8');
/** Why a whole text is over `limits`, in one feed. */
const jsonWorkProblem = (text: Uint8Array, limits: JsonWorkLimits) => new JsonWorkMeter(limits).feed(text);

describe('JsonWorkMeter', () => {
  it('passes a text within both limits', () => {
    expect(jsonWorkProblem(bytes('{"a": [1, 2, {"b": [3]}], "c": "d"}'), LIMITS)).toBeNull();
  });

  it('refuses a text nested deeper than the limit, naming the limit', () => {
    expect(jsonWorkProblem(bytes('[[[[[1]]]]]'), LIMITS)).toBe('is nested deeper than 4 levels');
    expect(jsonWorkProblem(bytes('[[[[1]]]]'), LIMITS)).toBeNull();
  });

  it('refuses a text with more items than the limit', () => {
    expect(jsonWorkProblem(bytes(`[${Array(10).fill(0).join(',')}]`), LIMITS)).toBeNull();
    expect(jsonWorkProblem(bytes(`[${Array(11).fill(0).join(',')}]`), LIMITS)).toMatch(
      /^holds more than 10 items/,
    );
  });

  it('counts nothing inside strings, escaped quotes included', () => {
    expect(jsonWorkProblem(bytes('["[[[[[,,,,,,,,,,,,\\"[[[[[[["]'), LIMITS)).toBeNull();
  });

  it('carries its state across chunks, an escape cut at the boundary included', () => {
    const meter = new JsonWorkMeter(LIMITS);
    expect(meter.feed(bytes('["x\\'))).toBeNull();
    expect(meter.feed(bytes('"[[[[[[" ,'))).toBeNull();
    expect(meter.feed(bytes('[[[['))).toBe('is nested deeper than 4 levels');
  });

  it('stops at the first chunk that passes the depth limit, whatever follows', () => {
    const meter = new JsonWorkMeter({ maxDepth: 64, maxItems: 1_000 });
    expect(meter.feed(bytes('['.repeat(65)))).toBe('is nested deeper than 64 levels');
  });
});

describe('jsonTextWorkProblem (a text already in memory)', () => {
  it('measures a whole text as the meter does: depth, items, nothing counted inside strings', () => {
    expect(jsonTextWorkProblem('{"a": [1, 2, {"b": [3]}], "c": "[[[[[,,"}', LIMITS)).toBeNull();
    expect(jsonTextWorkProblem('[[[[[1]]]]]', LIMITS)).toBe('is nested deeper than 4 levels');
    expect(jsonTextWorkProblem(`[${Array(11).fill(0).join(',')}]`, LIMITS)).toMatch(
      /^holds more than 10 items/,
    );
  });

  it('stops at the slice that passes the depth limit, however long the text', () => {
    const text = `${'['.repeat(500_000)}${']'.repeat(500_000)}`;
    expect(jsonTextWorkProblem(text, { maxDepth: 64, maxItems: 10 })).toBe('is nested deeper than 64 levels');
  });

  it('keeps its count across slices: a string spanning them, a surrogate pair cut between them', () => {
    // The string opens in the first 64K-character slice and closes in the second, with "😀" cut in two.
    const text = `["${'x'.repeat(64 * 1024 - 3)}😀[[[[[[,,,,,,,,,,,,"]`;
    expect(jsonTextWorkProblem(text, LIMITS)).toBeNull();
    expect(jsonTextWorkProblem(`${text.slice(0, -1)}, [[[[[1]]]]]]`, LIMITS)).toBe(
      'is nested deeper than 4 levels',
    );
  });
});

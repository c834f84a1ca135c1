import { describe, expect, it } from 'vitest';
import { buildReport } from '../../../../src-main/telemetry/report/build-report';
import type { Timeline } from '../../../../src-main/telemetry/timeline/schema';
import { importTraceText, TraceImport } from '../../../../src-main/telemetry/trace/import-trace';
import { LineSplitter } from '../../../../src-main/telemetry/trace/line-splitter';
import { StagedImport } from '../../../../src-main/telemetry/trace/staged-import';
import { TRACE_LIMITS } from '../../../../src-main/limits';
import { timeline } from '../report/timeline-fixture';
import { seedRecord } from './seed-record';

const SEED_LINE = JSON.stringify(seedRecord('s1'));

/** `numLines` lines of our own timelines, each with `numGaps` gaps of 12.5 ms, every 7th a seed record. */
function trace(numLines: number, numGaps: number): string {
  const base = JSON.stringify(
    timeline({ id: 'ID', parts: { queue: 3, prefill: 9 }, gapsMs: Array(numGaps).fill(12.5) }),
  );
  const lines: string[] = [];
  for (let i = 0; i < numLines; i++)
    lines.push(i % 7 === 3 ? SEED_LINE.replace('"s1"', `"s${i}"`) : base.replace('"ID"', `"r${i}"`));
  return lines.join('\n');
}

/** Reads `text` the way the import worker does: split, parse, stage. */
function stage(text: string) {
  const staged = new StagedImport();
  const importer = new TraceImport({ skipBadLines: true }, (t, line) => staged.add(t, line));
  const splitter = new LineSplitter(TRACE_LIMITS.maxLineChars);
  for (const line of splitter.push(text)) importer.add(line);
  for (const line of splitter.end()) importer.add(line);
  return { staged, result: importer.finish() };
}

function commitAll(staged: StagedImport, runId: string): Timeline[] {
  const all: Timeline[] = [];
  for (let batch = staged.nextBatch(runId); batch.length > 0; batch = staged.nextBatch(runId)) {
    expect(batch.length).toBeLessThanOrEqual(TRACE_LIMITS.batchSize);
    all.push(...batch);
  }
  return all;
}

describe('staged trace import', () => {
  it('reports and commits exactly what a whole-file import gives, holding no parsed timeline', async () => {
    const text = trace(700, 20);
    const { staged, result } = stage(text);
    const whole = await importTraceText(text, { runId: 'run-1' });
    expect(result.timelines).toEqual([]);
    expect(staged.retained()).toMatchObject({ numTimelines: 0, numLines: 700 });
    expect(staged.report()).toEqual(buildReport(whole.timelines));
    expect(commitAll(staged, 'run-1')).toEqual(whole.timelines);
  });

  it('holds a bounded number of bytes per character read, the same for a trace ten times longer', () => {
    const small = stage(trace(500, 200)).staged.retained();
    const large = stage(trace(5_000, 200)).staged.retained();
    const perChar = (r: typeof small) => r.numBytes / r.numLineChars;
    console.log(
      `staged bytes per character: ${perChar(small).toFixed(2)} (500 lines), ${perChar(large).toFixed(2)} (5,000 lines)`,
    );
    expect(large.numGaps).toBeGreaterThan(9 * small.numGaps);
    // Text at 2 bytes a character plus typed arrays (8 bytes a gap, at most doubled capacity).
    expect(perChar(large)).toBeLessThan(6);
    expect(perChar(large)).toBeLessThanOrEqual(perChar(small) * 1.5);
  });

  it('rejects a malformed line with its number and reason and still commits every other line', () => {
    const lines = trace(600, 3).split('\n');
    lines.splice(2, 0, '{"requestId": "cut off');
    const { staged, result } = stage(lines.join('\n'));
    expect(result.numRejected).toBe(1);
    expect(result.rejected).toEqual([{ line: 3, reason: expect.stringMatching(/^not JSON: /) }]);
    const committed = commitAll(staged, 'run-2');
    expect(committed).toHaveLength(600);
    expect(committed.every((t) => t.runId === 'run-2')).toBe(true);
    expect(committed.map((t) => t.requestId)).toContain('r599');
  });

  it('holds nothing once cleared', () => {
    const { staged } = stage(trace(10, 5));
    staged.clear();
    expect(staged.retained()).toMatchObject({ numLines: 0, numLineChars: 0, numBytes: 0 });
  });

  it('holds the same bytes whether its records claim 2 or 20,000 tokens each, and reports every gap', async () => {
    // Many small uploads of such records each held up to 160 MB of gaps beyond their budgeted bytes.
    const records = (numTokens: number) =>
      Array.from({ length: 20 }, (_, i) =>
        JSON.stringify({
          ...seedRecord(`c${i}`),
          output_tokens: numTokens,
          last_token_client_ms: 1_240 + 7 * i,
        }),
      ).join('\n');
    const claimed = records(20_000);
    const few = stage(records(2)).staged.retained();
    const { staged } = stage(claimed);
    const many = staged.retained();
    expect(many.numGaps).toBe(20 * 19_999);
    expect(many.numBytes).toBe(few.numBytes + 2 * (many.numLineChars - few.numLineChars));
    const whole = await importTraceText(claimed);
    expect(staged.report()!.itl).toEqual(buildReport(whole.timelines).itl);
  });

  it('commits a batch no larger than its gap bound, however many tokens the records claim', () => {
    const line = JSON.stringify({ ...seedRecord('g'), output_tokens: 3_001 });
    const { staged } = stage(Array.from({ length: 12 }, () => line).join('\n'));
    const sizes: number[] = [];
    const maxGaps = 10_000;
    for (
      let batch = staged.nextBatch(null, maxGaps);
      batch.length > 0;
      batch = staged.nextBatch(null, maxGaps)
    )
      sizes.push(batch.reduce((sum, t) => sum + t.itlMs.length, 0));
    // A batch closes once it reaches the bound (one line past it at most), well under batchSize lines.
    expect(sizes).toEqual([12_000, 12_000, 12_000]);
  });
});

import { describe, expect, it } from 'vitest';
import { positiveControlRecords } from '../../../../src-main/telemetry/trace/controls';
import { importTraceText } from '../../../../src-main/telemetry/trace/import-trace';
import { TraceImportError } from '../../../../src-main/telemetry/trace/parse-line';
import { timeline } from '../report/timeline-fixture';
import { seedRecord } from './seed-record';

const record = () => seedRecord();
const jsonl = (...records: unknown[]) =>
  records.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n');

describe('seed 003 record import', () => {
  it('maps the stamps onto our parts: inbox, queue, prefill, emit, with server TTFT from gateway arrival', async () => {
    const { timelines } = await importTraceText(jsonl(record()));
    const t = timelines[0]!;
    expect(t.source).toBe('import');
    expect(t.parts).toMatchObject({ inbox: 5, queue: 20, prefill: 70, emit: 10, route: 0, slotLoad: 0 });
    expect(t.ttftMs).toBe(105);
    expect(t.unattributedMs).toBe(0);
    expect(t.numPromptTokens).toBe(700);
  });

  it('takes client TTFT from the client stamps and spreads the stream evenly over output − 1 gaps', async () => {
    const t = (await importTraceText(jsonl(record()))).timelines[0]!;
    expect(t.clientTtftMs).toBe(140);
    expect(t.itlMs).toEqual([25, 25, 25, 25]);
    expect(t.numOutputTokens).toBe(5);
    expect(t.e2eMs).toBe(105 + 100);
  });

  it('rejects a missing field with its line number and the field name', async () => {
    const { prefill_end_ms: _, ...partial } = record();
    const error = await importTraceText(jsonl(record(), partial)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TraceImportError);
    expect(error).toMatchObject({ line: 2, reason: 'missing field: prefill_end_ms' });
  });

  it('rejects non-monotonic stamps, naming the pair', async () => {
    const bad = { ...record(), prefill_end_ms: 1_035 };
    await expect(importTraceText(jsonl(bad))).rejects.toMatchObject({
      line: 1,
      reason: expect.stringMatching(
        /non-monotonic stamps: prefill_end_ms \(1035\) is before prefill_start_ms \(1040\)/,
      ),
    });
  });

  it('rejects non-positive token counts', async () => {
    await expect(importTraceText(jsonl({ ...record(), output_tokens: 0 }))).rejects.toMatchObject({
      reason: expect.stringMatching(/output_tokens: must be a positive token count/),
    });
  });

  it('rejects a line that is not JSON', async () => {
    await expect(importTraceText(jsonl(record(), '{"request_id": '))).rejects.toMatchObject({
      line: 2,
      reason: expect.stringMatching(/^not JSON/),
    });
  });

  it('skips and lists bad lines only when asked, and counts every non-blank line', async () => {
    const text = jsonl(record(), 'nope', '', { ...record(), prompt_tokens: -1 }, record());
    const result = await importTraceText(text, { skipBadLines: true });
    expect(result.numImported).toBe(2);
    expect(result.numLines).toBe(4);
    expect(result.rejected.map((r) => r.line)).toEqual([2, 4]);
    expect(result.rejected[0]!.reason).toMatch(/not JSON/);
  });

  it('reproduces the seed positive control: queue grows, prefill stays 145 ms', async () => {
    const { timelines } = await importTraceText(jsonl(...positiveControlRecords()));
    expect(timelines.map((t) => t.parts.prefill)).toEqual(Array(10).fill(145));
    expect(timelines.map((t) => t.parts.queue)).toEqual([4, 8, 12, 18, 45, 90, 170, 260, 390, 520]);
  });
});

describe('our own JSONL import', () => {
  it('reads back exported timelines unchanged, and files them under a run when asked', async () => {
    const original = [
      timeline({ parts: { queue: 3, prefill: 9 }, gapsMs: [4, 5] }),
      timeline({ hasFirstToken: false }),
    ];
    const result = await importTraceText(original.map((t) => JSON.stringify(t)).join('\n'));
    expect(result.timelines).toEqual(original);
    const filed = await importTraceText(JSON.stringify(original[0]), { runId: 'run-9' });
    expect(filed.timelines[0]!.runId).toBe('run-9');
  });

  it('rejects a timeline that could not have happened, with the invariant it breaks', async () => {
    const broken = { ...timeline({ parts: { prefill: 9 } }), ttftMs: 50 };
    await expect(importTraceText(JSON.stringify(broken))).rejects.toMatchObject({
      reason: expect.stringMatching(/impossible timeline: ttft/),
    });
  });

  it('rejects a line in neither format', async () => {
    await expect(importTraceText('{"id": 1}')).rejects.toMatchObject({
      reason: expect.stringMatching(/neither a trace record/),
    });
  });
});

describe('import bounds (limits.ts)', () => {
  it('accepts values up to the wide bounds: 10,000,000 prompt tokens, 1,000,000 output tokens, a day', async () => {
    const big = { ...record(), prompt_tokens: 10_000_000, output_tokens: 1_000_000 };
    const day = {
      ...record(),
      request_id: 'day',
      last_token_client_ms: record().client_send_ms + 86_400_000,
    };
    const { timelines } = await importTraceText(jsonl(big, day));
    expect(timelines.map((t) => t.numOutputTokens)).toEqual([1_000_000, 5]);
    expect(timelines[0]!.itlMs).toHaveLength(999_999);
  });

  it.each([
    [{ prompt_tokens: 10_000_001 }, /prompt_tokens: must be at most 10,000,000 tokens/],
    [{ output_tokens: 120_000_000 }, /output_tokens: must be at most 1,000,000 tokens/],
    [{ output_tokens: 2.5 }, /output_tokens: must be a whole number/],
    [{ last_token_client_ms: 1_000 + 86_400_001 }, /span 86400001 ms .* at most 86,400,000 ms/],
    [{ request_id: 'x'.repeat(1_001) }, /request_id: must be at most 1000 characters/],
  ])('rejects %j as one bad line with the bound it broke', async (change, reason) => {
    const result = await importTraceText(jsonl(record(), { ...record(), ...change }), { skipBadLines: true });
    expect(result.numImported).toBe(1);
    expect(result.rejected).toEqual([{ line: 2, reason: expect.stringMatching(reason) }]);
  });

  it('rejects a stamp JSON can only write as an overflowing number (1e400 is Infinity)', async () => {
    const text = JSON.stringify(record()).replace('"client_send_ms":1000', '"client_send_ms":1e400');
    const result = await importTraceText(text, { skipBadLines: true });
    expect(result.rejected[0]?.reason).toMatch(/client_send_ms: must be a finite number of ms/);
  });

  it('rejects our own timelines with out-of-range counts or spans', async () => {
    const ours = { ...timeline(), numOutputTokens: 1_000_001 };
    const long = { ...timeline(), requestId: 'long', e2eMs: 86_400_001 };
    const result = await importTraceText(jsonl(ours, long), { skipBadLines: true });
    expect(result.rejected.map((r) => r.reason)).toEqual([
      expect.stringMatching(/numOutputTokens: must be at most 1,000,000/),
      expect.stringMatching(/e2eMs: the request spans more than 86,400,000 ms/),
    ]);
  });

  it('lists the first 1,000 rejected lines and counts the rest', async () => {
    const text = Array.from({ length: 1_200 }, () => 'nope').join('\n');
    const result = await importTraceText(text, { skipBadLines: true });
    expect(result.numLines).toBe(1_200);
    expect(result.rejected).toHaveLength(1_000);
    expect(result.numRejected).toBe(1_200);
  });

  it('rejects lines beyond the in-memory gap cap instead of running out of memory', async () => {
    const big = (i: number) => ({ ...record(), request_id: `r${i}`, output_tokens: 1_000_000 });
    const lines = Array.from({ length: 21 }, (_, i) => big(i));
    const result = await importTraceText(jsonl(...lines), { skipBadLines: true });
    expect(result.numImported).toBe(20);
    expect(result.rejected).toEqual([
      {
        line: 21,
        reason: expect.stringMatching(/at most 20,000,000 inter-token gaps in memory; split the file/),
      },
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import type { SeedRecord } from '../../../../src-main/telemetry/trace';
import {
  importTraceText,
  positiveControlRecords,
  TraceImportError,
} from '../../../../src-main/telemetry/trace';
import { timeline } from '../report/timeline-fixture';

const record = (): SeedRecord => ({
  request_id: 'h1',
  prompt_tokens: 700,
  output_tokens: 5,
  client_send_ms: 1_000,
  gateway_arrival_ms: 1_015,
  queue_enter_ms: 1_020,
  prefill_start_ms: 1_040,
  prefill_end_ms: 1_110,
  first_token_server_ms: 1_120,
  first_token_client_ms: 1_140,
  last_token_client_ms: 1_240,
});
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

import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { CSV_COLUMNS, CSV_HEADER } from '../../../../src-main/telemetry/trace/csv-columns';
import { toCsvString, writeCsv } from '../../../../src-main/telemetry/trace/csv-export';
import { timeline } from '../report/timeline-fixture';

async function collect(run: (out: PassThrough) => Promise<unknown>): Promise<string> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  await run(out);
  return Buffer.concat(chunks).toString('utf8');
}

describe('CSV export', () => {
  it('writes a header and one row per request with parts in ms', async () => {
    const text = await collect((out) => writeCsv([timeline({ parts: { queue: 12.5, prefill: 30 } })], out));
    const rows = parse(text, { columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0]!)).toEqual([...CSV_HEADER]);
    expect(rows[0]).toMatchObject({
      queue_ms: '12.5',
      prefill_ms: '30',
      ttft_ms: '42.5',
      finish_reason: 'stop',
    });
  });

  it('quotes commas, quotes and newlines so the file parses back to the same text', async () => {
    const nasty = { ...timeline({ finish: 'error' }), errorMessage: 'bad "thing", then\nanother' };
    const text = await collect((out) => writeCsv([nasty], out));
    const rows = parse(text, { columns: true }) as Record<string, string>[];
    expect(rows[0]!.error_message).toBe('bad "thing", then\nanother');
  });

  it('neutralises cells a spreadsheet would run as formulas, in the streamed and in-memory exports', async () => {
    const hostile = ['=HYPERLINK("http://evil.example","x")', '+1+1', '-2+3', '@SUM(A1)', '\tcmd', '\r=1'];
    const timelines = hostile.map((text, i) => ({
      ...timeline({ finish: 'error' }),
      requestId: text,
      conversationId: `=cmd|' /C calc'!A${i}`,
      modelId: text,
      errorMessage: text,
    }));
    for (const text of [await collect((out) => writeCsv(timelines, out)), toCsvString(timelines)]) {
      const rows = parse(text, { columns: true }) as Record<string, string>[];
      rows.forEach((row, i) => {
        for (const column of ['request_id', 'model_id', 'error_message'])
          expect(row[column]).toBe(`'${hostile[i]}`);
        expect(row.conversation_id!.startsWith("'=cmd")).toBe(true);
      });
    }
  });

  it('keeps negative numbers numbers (only text cells are neutralised)', () => {
    const base = timeline({ parts: { prefill: 30 } });
    const late = { ...base, clientTtftMs: base.ttftMs! - 5 };
    const row = (parse(toCsvString([late]), { columns: true }) as Record<string, string>[])[0]!;
    expect(Number(row.transport_ms)).toBeLessThan(0);
    expect(row.transport_ms!.startsWith('-')).toBe(true);
  });

  it('leaves unknown values empty rather than writing null or NaN', () => {
    const text = toCsvString([timeline({ hasFirstToken: false })]);
    const row = (parse(text, { columns: true }) as Record<string, string>[])[0]!;
    expect(row.ttft_ms).toBe('');
    expect(row.client_ttft_ms).toBe('');
    expect(text).not.toMatch(/NaN|null/);
  });

  it('streams from a generator and reports the row count', async () => {
    function* many() {
      for (let i = 0; i < 2_500; i++) yield timeline({ parts: { prefill: i } });
    }
    let numRows = 0;
    const text = await collect(async (out) => (numRows = await writeCsv(many(), out)));
    expect(numRows).toBe(2_500);
    expect(text.trim().split('\n')).toHaveLength(2_501);
  });

  it('documents every column, in order, with its unit in docs/csv-columns.md', () => {
    const doc = readFileSync(new URL('../../../../docs/csv-columns.md', import.meta.url), 'utf8');
    const columnTable = doc.slice(0, doc.indexOf('## The same numbers in other tools'));
    const documented = [...columnTable.matchAll(/^\| `([a-z0-9_]+)` +\| +[^|\s]/gm)].map((m) => m[1]);
    expect(documented).toEqual(CSV_COLUMNS.map((c) => c.name));
  });
});

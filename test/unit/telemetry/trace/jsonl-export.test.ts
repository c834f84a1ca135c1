import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { importTraceText } from '../../../../src-main/telemetry/trace/import-trace';
import { writeJsonl } from '../../../../src-main/telemetry/trace/jsonl-export';
import { timeline } from '../report/timeline-fixture';

describe('JSONL export', () => {
  it('writes one full timeline per line that imports back unchanged', async () => {
    const original = [
      timeline({ parts: { prefill: 5 }, gapsMs: [1, 2, 3] }),
      timeline({ clientTtftMs: 40, parts: { queue: 20 } }),
    ];
    const out = new PassThrough();
    let text = '';
    out.on('data', (c: Buffer) => (text += c.toString()));
    expect(await writeJsonl(original, out)).toBe(2);
    expect(text.endsWith('\n')).toBe(true);
    expect((await importTraceText(text)).timelines).toEqual(original);
  });
});

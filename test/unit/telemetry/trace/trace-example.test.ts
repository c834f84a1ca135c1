import { describe, expect, it } from 'vitest';
import { importTraceText } from '../../../../src-main/telemetry/trace/import-trace';
import { TRACE_EXAMPLE_LINE } from '../../../../src-main/telemetry/trace/trace-example';

describe('the example trace line the Traces view and docs/telemetry.md show', () => {
  it('imports clean as one request with a first token, its parts summing to its TTFT', async () => {
    const { timelines, rejected } = await importTraceText(`${TRACE_EXAMPLE_LINE}\n`);
    expect(rejected).toEqual([]);
    expect(timelines).toHaveLength(1);
    const t = timelines[0]!;
    expect(t.requestId).toBe('req-0001');
    expect(t.ttftMs).toBeCloseTo(49.5 - 1.2, 9);
    expect(t.clientTtftMs).toBeCloseTo(51, 9);
  });

  it('is written in docs/telemetry.md exactly as the view shows it', async () => {
    const { readFileSync } = await import('node:fs');
    const docs = readFileSync(new URL('../../../../docs/telemetry.md', import.meta.url), 'utf8');
    expect(docs).toContain(TRACE_EXAMPLE_LINE);
  });
});

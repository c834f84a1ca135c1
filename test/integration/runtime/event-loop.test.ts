import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../../src-main/runtime';
import { createTestRuntime, generate } from '../../support/runtime';

describe('the main thread only routes', () => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await createTestRuntime({
      isPaging: false,
      prefillChunkTokens: null,
      maxPromptTokens: 2048,
      maxOutputTokens: 64,
      defaultMaxTokens: 2,
      maxQueue: 8,
      defaultDeadlineMs: null,
    });
    await generate(runtime, { prompt: { kind: 'text', text: 'warm up' }, maxTokens: 1 });
  });
  afterAll(() => runtime.close());

  it('keeps the event loop responsive while a long prefill runs in the worker', async () => {
    const histogram = monitorEventLoopDelay({ resolution: 1 });
    histogram.enable();
    const text = 'The rain fell softly on the old stone walls of the abbey while they talked. '.repeat(90);
    const result = await generate(runtime, { prompt: { kind: 'text', text }, maxTokens: 2 });
    histogram.disable();
    expect(result.timeline.numPromptTokens).toBeGreaterThan(1000);
    const prefillMs = result.timeline.parts.prefill;
    const maxLagMs = histogram.max / 1e6;
    console.log(
      `prefill of ${result.timeline.numPromptTokens} tokens: ${prefillMs.toFixed(1)} ms; worst event-loop lag meanwhile ${maxLagMs.toFixed(1)} ms`,
    );
    // A ratio, not a fixed limit: had the main thread run the forward, it would have been
    // blocked for the whole prefill; on a busy machine both figures grow together.
    expect(maxLagMs).toBeLessThan(prefillMs / 4);
  });
});

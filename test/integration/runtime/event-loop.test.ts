import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../../src-main/runtime/runtime';
import { systemClock } from '../../../src-main/telemetry/clock';
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

  it('keeps the event loop turning while a long prefill runs in the worker', async () => {
    // Each turn of the main thread's event loop is stamped on the timeline's clock; had the main
    // thread run the forward, no turn could fall inside the prefill's own stamps.
    const turnsAt: number[] = [];
    let isDone = false;
    const turn = (): void => {
      turnsAt.push(systemClock.now());
      if (!isDone) setImmediate(turn);
    };
    setImmediate(turn);
    const text = 'The rain fell softly on the old stone walls of the abbey while they talked. '.repeat(90);
    const result = await generate(runtime, { prompt: { kind: 'text', text }, maxTokens: 2 });
    isDone = true;
    expect(result.timeline.numPromptTokens).toBeGreaterThan(1000);
    const prefill = result.timeline.transitions.find((t) => t.state === 'prefill')!;
    const endAt = result.timeline.transitions[result.timeline.transitions.indexOf(prefill) + 1]!.at;
    const numTurnsInside = turnsAt.filter((at) => at > prefill.at && at < endAt).length;
    console.log(
      `prefill of ${result.timeline.numPromptTokens} tokens: ${(endAt - prefill.at).toFixed(1)} ms; ${numTurnsInside} event-loop turns meanwhile`,
    );
    expect(numTurnsInside).toBeGreaterThan(1);
  });
});

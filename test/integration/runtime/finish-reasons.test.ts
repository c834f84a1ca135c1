import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectGeneration } from '../../../src-main/runtime/collect';
import type { Runtime } from '../../../src-main/runtime/runtime';
import { chat, createTestRuntime, expectNothingHeld, generate, TEST_MODEL_ID } from '../../support/runtime';

describe('every finish reason releases seats and pages', () => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await createTestRuntime({
      isPaging: true,
      pageSize: 16,
      prefillChunkTokens: 16,
      maxSeats: 2,
      maxPromptTokens: 1024,
      maxOutputTokens: 512,
      defaultMaxTokens: 16,
      maxQueue: 3,
      defaultDeadlineMs: null,
    });
  });
  afterAll(() => runtime.close());

  it('length: stops at maxTokens and holds nothing', async () => {
    const result = await generate(runtime, { prompt: chat('Hello there, how do you do?'), maxTokens: 5 });
    expect(result.timeline.finishReason).toBe('length');
    expect(result.timeline.numOutputTokens).toBe(5);
    expectNothingHeld(runtime);
  });

  it('stop: the end-of-turn token ends an answer, and ignoreEos writes through it to maxTokens', async () => {
    const natural = await generate(runtime, { prompt: chat('Hello! How are you today?'), maxTokens: 200 });
    expect(natural.timeline.finishReason).toBe('stop');
    expect(natural.timeline.numOutputTokens).toBeLessThan(200);
    const forced = await generate(runtime, {
      prompt: chat('Hello! How are you today?'),
      maxTokens: 200,
      ignoreEos: true,
    });
    expect(forced.timeline.finishReason).toBe('length');
    expect(forced.timeline.numOutputTokens).toBe(200);
    expectNothingHeld(runtime);
  });

  it('stop: a stop string ends the text before it and holds nothing', async () => {
    const free = await generate(runtime, {
      prompt: { kind: 'text', text: 'It was a fine day and' },
      maxTokens: 24,
    });
    // Greedy output is fixed for the bundled model: two of its characters become the stop string.
    const stop = free.text.trim().slice(2, 4);
    expect(stop).toHaveLength(2);
    const result = await generate(runtime, {
      prompt: { kind: 'text', text: 'It was a fine day and' },
      maxTokens: 24,
      stop: [stop],
    });
    expect(result.timeline.finishReason).toBe('stop');
    expect(result.text).not.toContain(stop);
    expect(free.text.startsWith(result.text)).toBe(true);
    expectNothingHeld(runtime);
  });

  it('cancelled: cancelling mid-stream ends it as cancelled and holds nothing', async () => {
    const pending = collectGeneration(
      runtime,
      {
        requestId: 'cancel-me',
        modelId: TEST_MODEL_ID,
        prompt: chat('Write a long letter to your sister.'),
        maxTokens: 400,
        temperature: 0,
      },
      (chunk) => {
        if (chunk.tokenIds.length > 0) runtime.cancel('cancel-me');
      },
    );
    const result = await pending;
    expect(result.timeline.finishReason).toBe('cancelled');
    expect(result.timeline.numOutputTokens).toBeLessThan(400);
    expectNothingHeld(runtime);
  });

  it('cancelled: a long prompt cancelled between prefill chunks ends with no token and holds nothing', async () => {
    const runner = (await runtime.prefetch(TEST_MODEL_ID)).runner!;
    const step = runner.step.bind(runner);
    let numPrefillChunks = 0;
    // Cancel right after the first prefill chunk comes back: the prompt has many more to go.
    runner.step = async (job) => {
      const reply = await step(job);
      if (job.prefill?.seqId === 'cancel-in-prefill' && ++numPrefillChunks === 1)
        runtime.cancel('cancel-in-prefill');
      return reply;
    };
    const text = 'The rain fell softly on the old stone walls while they talked of letters. '.repeat(40);
    const pending = collectGeneration(runtime, {
      requestId: 'cancel-in-prefill',
      modelId: TEST_MODEL_ID,
      prompt: { kind: 'text', text },
      maxTokens: 5,
      temperature: 0,
    });
    const result = await pending;
    runner.step = step;
    expect(numPrefillChunks).toBe(1);
    expect(result.timeline.numPromptTokens).toBeGreaterThan(16 * 10); // many 16-token chunks left
    expect(result.timeline.finishReason).toBe('cancelled');
    expect(result.timeline.ttftMs).toBeNull();
    expect(result.timeline.numOutputTokens).toBe(0);
    expectNothingHeld(runtime);
  });

  it('deadline: a request past its deadline ends as deadline and holds nothing', async () => {
    const result = await generate(runtime, {
      prompt: chat('Tell me everything.'),
      maxTokens: 500,
      ignoreEos: true,
      deadlineMs: 30,
    });
    expect(result.timeline.finishReason).toBe('deadline');
    expectNothingHeld(runtime);
  });

  it('rejected: a full queue refuses with queue_full and the queued ones still finish', async () => {
    const requests = Array.from({ length: 7 }, (_, i) =>
      generate(runtime, { prompt: chat(`Question number ${i}`), maxTokens: 3 }),
    );
    const results = await Promise.all(requests);
    const rejected = results.filter((r) => r.timeline.finishReason === 'rejected');
    expect(rejected.length).toBeGreaterThan(0);
    expect(rejected[0]!.errorCode).toBe('queue_full');
    expect(results.filter((r) => r.timeline.finishReason === 'length').length).toBe(7 - rejected.length);
    expectNothingHeld(runtime);
  });

  it('error: a broken model fails the request with a clear reason and holds nothing', async () => {
    const result = await generate(runtime, { prompt: chat('Hi'), modelId: 'no-such-model' });
    expect(result.timeline.finishReason).toBe('rejected');
    expect(result.errorCode).toBe('not_found');
    expect(result.errorMessage).toContain('unknown model "no-such-model"');
    expectNothingHeld(runtime);
  });

  it('rejected: a variant the model does not have is refused with the variants it has', async () => {
    const name = TEST_MODEL_ID.split(':')[0]!;
    const variants = runtime.catalogue
      .list()
      .flatMap((e) => (e.name === name && e.variant ? [e.modelId.slice(name.length + 1)] : []));
    const result = await generate(runtime, { prompt: chat('Hi'), modelId: `${name}:q3` });
    expect(result.timeline.finishReason).toBe('rejected');
    expect(result.errorCode).toBe('not_found');
    expect(result.errorMessage).toBe(`${name} has no variant "q3"; its variants: ${variants.join(', ')}`);
    expect(variants.length).toBeGreaterThan(0);
    expectNothingHeld(runtime);
  });
});

import { describe, expect, it } from 'vitest';
import type { Frame } from '../../../../src-main/service/openai/types';
import { createOpenAiService } from '../../../../src-main/service/openai/service';
import { fakeRuntime } from './fake-runtime';

function serviceWithFrames(load = {}) {
  const fake = fakeRuntime(load);
  const service = createOpenAiService({ runtime: fake.runtime, clock: fake.clock });
  const frames: Frame[] = [];
  const start = (endpoint: 'chat' | 'text', body: unknown) =>
    service.start(endpoint, body, (f) => frames.push(f));
  return { fake, service, frames, start };
}

const CHAT = { model: 'tiny', messages: [{ role: 'user', content: 'Hi' }] };

describe('OpenAI service: answers in OpenAI shapes', () => {
  it('lists only variants that load, by name:variant; a bare name retrieves its default variant', () => {
    const { service } = serviceWithFrames();
    expect(service.listModels()).toEqual({
      object: 'list',
      data: [{ id: 'tiny:fp32', object: 'model', created: expect.any(Number), owned_by: 'first-frame' }],
    });
    expect(service.retrieveModel('tiny')).toMatchObject({ id: 'tiny', object: 'model' });
    const notFound = (message: string) => ({
      status: 404,
      body: { error: { message, type: 'invalid_request_error', code: 'model_not_found' } },
    });
    expect(service.retrieveModel('tiny:q4')).toMatchObject(
      notFound("The model 'tiny:q4' does not exist (GET /v1/models lists them)."),
    );
    // Listed but unusable: the answer is why, by its listed name or as `name:variant`, never "does not exist".
    expect(service.retrieveModel('broken')).toMatchObject(
      notFound("The model 'broken' cannot run: onnx/: no ONNX model file"),
    );
    expect(service.retrieveModel('gemma:gguf')).toMatchObject(
      notFound(
        "The model 'gemma:gguf' cannot run: gemma: not supported yet: architecture gemma3 (supported: llama)",
      ),
    );
  });

  it('a request without model runs on the default model and its reply names that model', () => {
    const { start, frames, fake } = serviceWithFrames();
    start('chat', { messages: CHAT.messages });
    expect(fake.requests.at(-1)).not.toHaveProperty('modelId');
    expect((frames[0] as Extract<Frame, { kind: 'json' }>).body).toMatchObject({ model: 'tiny:fp32' });
  });

  it('answers a non-streamed chat completion as one chat.completion with usage and timings', () => {
    const { start, frames } = serviceWithFrames();
    const call = start('chat', CHAT);
    expect(call?.id).toMatch(/^chatcmpl-[0-9a-f]{32}$/);
    expect(frames).toHaveLength(1);
    const frame = frames[0] as Extract<Frame, { kind: 'json' }>;
    expect(frame).toMatchObject({ kind: 'json', status: 200 });
    expect(frame.body).toMatchObject({
      id: call!.id,
      object: 'chat.completion',
      model: 'tiny',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hello there', refusal: null },
          logprobs: null,
          finish_reason: 'length',
        },
      ],
      usage: {
        prompt_tokens: 12,
        completion_tokens: 2,
        total_tokens: 14,
        prompt_tokens_details: { cached_tokens: 8 },
      },
      timings: {
        ttft_ms: 17.25,
        route_ms: 2,
        queue_ms: 0.5,
        prefill_ms: 0.5,
        emit_ms: 3,
        inbox_ms: 1,
        slot_load_ms: 0,
        unattributed_ms: 0,
        decode_ms: 3,
        e2e_ms: 20.25,
        cache_n: 8,
        prompt_n: 4,
        predicted_n: 2,
        finish_reason: 'length',
      },
    });
  });

  it('streams one event per chunk (role on the first), then finish, usage and [DONE]', () => {
    const { start, frames } = serviceWithFrames();
    start('chat', { ...CHAT, stream: true, stream_options: { include_usage: true } });
    expect(frames.map((f) => f.kind)).toEqual(['event', 'event', 'event', 'event', 'end']);
    const data = frames
      .slice(0, 4)
      .map((f) => (f as Extract<Frame, { kind: 'event' }>).data as Record<string, unknown>);
    expect(data[0]).toMatchObject({
      object: 'chat.completion.chunk',
      choices: [{ delta: { role: 'assistant', content: 'Hello' }, finish_reason: null }],
      usage: null,
    });
    expect(data[1]).toMatchObject({ choices: [{ delta: { content: ' there' } }] });
    expect(data[2]).toMatchObject({ choices: [{ delta: {}, finish_reason: 'length' }], usage: null });
    expect(data[2]).not.toHaveProperty('timings');
    expect(data[3]).toMatchObject({
      choices: [],
      usage: { completion_tokens: 2 },
      timings: { ttft_ms: 17.25 },
    });
  });

  it('puts timings on the finish chunk when usage is not asked for', () => {
    const { start, frames } = serviceWithFrames();
    start('text', { model: 'tiny', prompt: 'Once', stream: true });
    const last = (frames.at(-2) as Extract<Frame, { kind: 'event' }>).data;
    expect(last).toMatchObject({
      object: 'text_completion',
      choices: [{ text: '', finish_reason: 'length' }],
      timings: { predicted_n: 2 },
    });
    expect(last).not.toHaveProperty('usage');
  });

  it('reports a deadline cut as finish_reason deadline, not length', () => {
    const { start, frames, fake } = serviceWithFrames();
    fake.setScript({ texts: ['a'], finish: 'deadline' });
    start('text', { model: 'tiny', prompt: 'Once' });
    expect((frames[0] as Extract<Frame, { kind: 'json' }>).body).toMatchObject({
      object: 'text_completion',
      choices: [{ text: 'a', finish_reason: 'deadline' }],
      timings: { finish_reason: 'deadline' },
    });
  });

  it('answers a full queue with 429 and a Retry-After from the load', () => {
    const { start, frames, fake } = serviceWithFrames({ numWaiting: 7, numSeats: 2 });
    fake.setScript({
      texts: [],
      finish: 'rejected',
      errorCode: 'queue_full',
      errorMessage: 'the queue is full (8 waiting); retry later',
    });
    expect(start('chat', CHAT)).not.toBeNull();
    expect(frames).toEqual([
      {
        kind: 'json',
        status: 429,
        headers: { 'Retry-After': '4' },
        body: {
          error: {
            message: 'the queue is full (8 waiting); retry later',
            type: 'rate_limit_error',
            param: null,
            code: 'queue_full',
          },
        },
      },
    ]);
  });

  it('maps runtime refusals: unknown model 404, too long 400, shut down 503, a bug 500', () => {
    const cases = [
      {
        errorCode: 'not_found',
        errorMessage: 'unknown model "x"; known: tiny',
        finish: 'rejected',
        status: 404,
        param: 'model',
      },
      {
        errorCode: 'invalid_input',
        errorMessage: 'prompt is 5000 tokens; the limit is 4096',
        finish: 'rejected',
        status: 400,
        param: 'messages',
      },
      {
        errorCode: 'unavailable',
        errorMessage: 'the runtime is shutting down',
        finish: 'rejected',
        status: 503,
        param: null,
      },
      { errorCode: 'internal', errorMessage: 'step failed: boom', finish: 'error', status: 500, param: null },
    ] as const;
    for (const c of cases) {
      const { start, frames, fake } = serviceWithFrames();
      fake.setScript({ texts: [], finish: c.finish, errorCode: c.errorCode, errorMessage: c.errorMessage });
      start('chat', CHAT);
      expect(frames[0]).toMatchObject({
        kind: 'json',
        status: c.status,
        body: { error: { message: c.errorMessage, param: c.param } },
      });
    }
  });

  it('reports an error after streaming began as an error event, then ends the stream', () => {
    const { start, frames, fake } = serviceWithFrames();
    fake.setScript({
      texts: ['a'],
      finish: 'error',
      errorCode: 'internal',
      errorMessage: 'step failed: boom',
    });
    start('chat', { ...CHAT, stream: true });
    expect(frames.map((f) => f.kind)).toEqual(['event', 'event', 'end']);
    expect((frames[1] as Extract<Frame, { kind: 'event' }>).data).toEqual({
      error: { message: 'step failed: boom', type: 'server_error', param: null, code: 'internal_error' },
    });
  });

  it('refuses an invalid body at once with 400 naming the field, and submits nothing', () => {
    const { start, frames, fake } = serviceWithFrames();
    expect(start('chat', { ...CHAT, messages: [{ role: 'tool', content: 'x' }] })).toBeNull();
    expect(frames[0]).toMatchObject({
      kind: 'json',
      status: 400,
      body: {
        error: {
          type: 'invalid_request_error',
          param: 'messages[0].role',
          message: expect.stringContaining('tool messages are not supported'),
        },
      },
    });
    expect(fake.requests).toHaveLength(0);
  });

  it('cancels through the runtime with the call id', () => {
    const { start, fake } = serviceWithFrames();
    const call = start('chat', CHAT)!;
    call.cancel();
    expect(fake.cancelled).toEqual([call.id]);
  });

  it('checks first_frame.run_id against the stored runs when history is on', () => {
    const fake = fakeRuntime();
    const runs = {
      get: (runId: string) =>
        runId === 'run-1' ? { runId, name: 'n', startedWallMs: 0, config: {}, numRequests: 0 } : null,
    };
    const service = createOpenAiService({
      runtime: fake.runtime,
      clock: fake.clock,
      history: { isPersistent: true, runs },
    });
    const frames: Frame[] = [];
    service.start('chat', { ...CHAT, first_frame: { run_id: 'run-2' } }, (f) => frames.push(f));
    expect(frames[0]).toMatchObject({ status: 400, body: { error: { param: 'first_frame.run_id' } } });
    service.start('chat', { ...CHAT, first_frame: { run_id: 'run-1', conversation_id: 'c' } }, (f) =>
      frames.push(f),
    );
    expect(fake.requests[0]).toMatchObject({ runId: 'run-1', conversationId: 'c' });
  });
});

describe('OpenAI service: per-request deadlines', () => {
  it('takes the deadline from the header or first_frame.deadline_ms and reports a cut as finish reason deadline', () => {
    const { start, fake, frames, service } = serviceWithFrames();
    fake.setScript({ texts: ['Hel'], finish: 'deadline' });
    start('chat', { ...CHAT, first_frame: { deadline_ms: 250 } });
    service.start('chat', CHAT, (f) => frames.push(f), undefined, '400');
    expect(fake.requests.map((r) => r.deadlineMs)).toEqual([250, 400]);
    const bodies = frames.map((f) => (f as Extract<Frame, { kind: 'json' }>).body) as {
      choices: { finish_reason: string }[];
      timings: { finish_reason: string };
    }[];
    expect(bodies.map((b) => b.choices[0]!.finish_reason)).toEqual(['deadline', 'deadline']);
    expect(bodies[0]!.timings.finish_reason).toBe('deadline');
  });

  it('refuses a bad or contradicting deadline with a 400 naming it, and submits nothing', () => {
    const { service, fake } = serviceWithFrames();
    const frames: Frame[] = [];
    service.start('chat', CHAT, (f) => frames.push(f), undefined, 'soon');
    service.start(
      'chat',
      { ...CHAT, first_frame: { deadline_ms: 100 } },
      (f) => frames.push(f),
      undefined,
      '200',
    );
    service.start('chat', { ...CHAT, first_frame: { deadline_ms: 0 } }, (f) => frames.push(f));
    expect(fake.requests).toHaveLength(0);
    const errors = frames.map((f) => f as Extract<Frame, { kind: 'json' }>);
    expect(errors.map((e) => e.status)).toEqual([400, 400, 400]);
    const messages = errors.map((e) => (e.body as { error: { message: string; param: string } }).error);
    expect(messages[0]).toMatchObject({ param: 'x-first-frame-deadline-ms' });
    expect(messages[0]!.message).toMatch(/got "soon"/);
    expect(messages[1]!.message).toMatch(/set twice and differs/);
    expect(messages[2]).toMatchObject({ param: 'first_frame.deadline_ms' });
  });
});

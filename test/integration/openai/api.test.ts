import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { APIError, AuthenticationError, BadRequestError, NotFoundError } from 'openai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeGguf } from '../../../tools/gguf/gguf-file';
import { TTFT_PARTS } from '../../../src-main/telemetry/timeline/parts';
import { partKey } from '../../../src-main/service/openai/timings';
import { BUNDLED_MODEL_OLD_REF, BUNDLED_MODEL_REF } from '../../support/models';
import { expectNothingHeld, TEST_MODEL_ID, TEST_MODEL_REF } from '../../support/runtime';
import type { ApiFixture } from './api-server';
import { startApiFixture } from './api-server';

type WithTimings = { timings?: Record<string, unknown> };

/** The timings' parts plus unattributed add up to ttft_ms (each part is rounded to µs). */
function expectPartsSumToTtft(timings: Record<string, unknown>): void {
  const parts = [...TTFT_PARTS.map(partKey), 'unattributed_ms'].map((key) => timings[key] as number);
  const sum = parts.reduce((a, b) => a + b, 0);
  expect(Math.abs(sum - (timings['ttft_ms'] as number))).toBeLessThan(0.001 * parts.length);
}

describe('the OpenAI-compatible API, driven by the official openai client', () => {
  let api: ApiFixture;
  // A models folder with a valid GGUF of an architecture not converted yet and a file that is no GGUF.
  const userModelsDir = mkdtempSync(path.join(tmpdir(), 'ff-api-models-'));
  beforeAll(async () => {
    writeGguf(
      path.join(userModelsDir, 'mamba.gguf'),
      [['general.architecture', { type: 'string', value: 'mamba' }]],
      [],
    );
    writeFileSync(path.join(userModelsDir, 'junk.gguf'), 'not a GGUF');
    api = await startApiFixture({ apiKey: 'sk-local-test', runtime: { userModelsDir } });
  });
  afterAll(async () => {
    await api.close();
    rmSync(userModelsDir, { recursive: true, force: true });
  });

  it('lists each variant as name:variant and retrieves a bare name as its default variant', async () => {
    const models = await api.client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(
      expect.arrayContaining([TEST_MODEL_REF, `${TEST_MODEL_ID}:q8`, `${TEST_MODEL_ID}:q4`]),
    );
    const model = await api.client.models.retrieve(TEST_MODEL_ID);
    expect(model).toMatchObject({ id: TEST_MODEL_ID, object: 'model' });
    await expect(api.client.models.retrieve('no-such-model')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('lists the bundled variant by its fp16 weights and still answers a request naming its old id', async () => {
    const ids = (await api.client.models.list()).data.map((m) => m.id);
    expect(ids).toContain(BUNDLED_MODEL_REF);
    expect(ids).not.toContain(BUNDLED_MODEL_OLD_REF);
    const model = await api.client.models.retrieve(BUNDLED_MODEL_OLD_REF);
    expect(model).toMatchObject({ id: BUNDLED_MODEL_OLD_REF, object: 'model' });
    const completion = await api.client.chat.completions.create({
      model: BUNDLED_MODEL_OLD_REF,
      messages: [{ role: 'user', content: 'Good morning!' }],
      max_tokens: 2,
      temperature: 0,
    });
    expect(completion.choices[0]?.finish_reason).toBe('length');
    expect((await api.timelineOf(completion.id)).modelId).toBe(BUNDLED_MODEL_REF);
  });

  it('answers a chat completion with usage, cached tokens and timings that sum to TTFT', async () => {
    const completion = await api.client.chat.completions.create({
      model: TEST_MODEL_ID,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Good morning!' }] },
      ],
      max_tokens: 6,
      temperature: 0,
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.choices[0]).toMatchObject({
      index: 0,
      finish_reason: 'length',
      message: { role: 'assistant' },
    });
    expect(completion.usage).toMatchObject({
      completion_tokens: 6,
      prompt_tokens_details: { cached_tokens: expect.any(Number) },
    });
    const { timings } = completion as typeof completion & WithTimings;
    expect(timings).toMatchObject({ finish_reason: 'length', predicted_n: 6 });
    expectPartsSumToTtft(timings!);
    const timeline = await api.timelineOf(completion.id);
    expect(timeline.ttftMs).toBeCloseTo(timings!['ttft_ms'] as number, 2);
    expect(timeline.numOutputTokens).toBe(6);
  });

  it('streams a chat completion chunk by chunk, with usage and timings on the final chunk', async () => {
    const stream = await api.client.chat.completions.create({
      model: TEST_MODEL_ID,
      messages: [{ role: 'user', content: 'Tell me about the ball.' }],
      max_completion_tokens: 8,
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const tokens = chunks.filter((c) => c.choices[0]?.delta.content !== undefined);
    expect(tokens.length).toBe(8);
    expect(tokens[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]?.finish_reason).toBe('length');
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ completion_tokens: 8 });
    expectPartsSumToTtft((last as typeof last & WithTimings).timings!);
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
  });

  it('answers text completions, streamed and not, the same way with a fixed seed', async () => {
    const request = {
      model: TEST_MODEL_ID,
      prompt: 'It was a fine morning and',
      max_tokens: 5,
      temperature: 0.8,
      seed: 7,
    };
    const whole = await api.client.completions.create(request);
    expect(whole).toMatchObject({
      object: 'text_completion',
      choices: [{ index: 0, finish_reason: 'length' }],
      usage: { completion_tokens: 5 },
    });
    const stream = await api.client.completions.create({ ...request, stream: true });
    let text = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.text ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if ((chunk as typeof chunk & WithTimings).timings)
        expectPartsSumToTtft((chunk as typeof chunk & WithTimings).timings!);
    }
    expect(text).toBe(whole.choices[0]!.text);
    expect(finish).toBe('length');
  });

  it('refuses an invalid body with 400 and a message naming the field', async () => {
    const bad = api.client.chat.completions.create({
      model: TEST_MODEL_ID,
      messages: [{ role: 'user', content: 'hi' }],
      temperature: 9,
    });
    await expect(bad).rejects.toBeInstanceOf(BadRequestError);
    await expect(bad).rejects.toMatchObject({
      status: 400,
      param: 'temperature',
      message: expect.stringContaining("'temperature'"),
    });
    const many = api.client.chat.completions.create({
      model: TEST_MODEL_ID,
      messages: [{ role: 'user', content: 'hi' }],
      n: 2,
    });
    await expect(many).rejects.toMatchObject({
      status: 400,
      param: 'n',
      message: expect.stringContaining('only n = 1'),
    });
    const missing = api.client.chat.completions.create({ model: TEST_MODEL_ID } as never);
    await expect(missing).rejects.toMatchObject({
      status: 400,
      message: "400 Missing required parameter: 'messages'.",
    });
    const unknown = api.client.chat.completions.create({
      model: 'no-such-model',
      messages: [{ role: 'user', content: 'hi' }],
    });
    await expect(unknown).rejects.toMatchObject({ status: 404, code: 'model_not_found', param: 'model' });
  });

  it('refuses a lone surrogate in a message or prompt with 400 naming the field and position', async () => {
    const numTimelines = api.timelines.length;
    const chat = api.client.chat.completions.create({
      model: TEST_MODEL_ID,
      messages: [{ role: 'user', content: 'x\ud800y' }],
    });
    await expect(chat).rejects.toMatchObject({
      status: 400,
      param: 'messages[0].content',
      message: expect.stringContaining('broken character at position 2 (a lone UTF-16 surrogate, \\ud800)'),
    });
    const parts = api.client.chat.completions.create({
      model: TEST_MODEL_ID,
      messages: [{ role: 'user', content: [{ type: 'text', text: '\udfff' }] }],
    });
    await expect(parts).rejects.toMatchObject({ status: 400, param: 'messages[0].content[0].text' });
    const text = api.client.completions.create({ model: TEST_MODEL_ID, prompt: 'a\udc00' });
    await expect(text).rejects.toMatchObject({ status: 400, param: 'prompt' });
    expect(api.timelines).toHaveLength(numTimelines);
  });

  it('refuses a wrong or missing key with 401', async () => {
    const wrong = new OpenAI({ baseURL: api.server.baseUrl, apiKey: 'sk-wrong', maxRetries: 0 });
    await expect(wrong.models.list()).rejects.toBeInstanceOf(AuthenticationError);
    const response = await fetch(`${api.server.baseUrl}/models`);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect(await response.json()).toMatchObject({
      error: { type: 'invalid_request_error', code: 'invalid_api_key', param: null },
    });
  });

  it('refuses broken JSON, a wrong content type, oversized bodies and sets no CORS headers', async () => {
    const post = (body: string, type = 'application/json') =>
      fetch(`${api.server.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'Content-Type': type, Authorization: 'Bearer sk-local-test' },
        body,
      });
    const broken = await post('{"model":');
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { error: { message: string } }).error.message).toMatch(
      /could not parse the JSON/,
    );
    expect((await post('{}', 'text/plain')).status).toBe(415);
    expect(
      (
        await post(
          JSON.stringify({ model: 'x', messages: [{ role: 'user', content: 'a'.repeat(2 * 1024 * 1024) }] }),
        )
      ).status,
    ).toBe(413);
    const options = await fetch(`${api.server.baseUrl}/chat/completions`, {
      method: 'OPTIONS',
      headers: { Authorization: 'Bearer sk-local-test' },
    });
    expect(options.status).toBe(405);
    expect(options.headers.get('access-control-allow-origin')).toBeNull();
    expect(await api.client.models.list()).toBeDefined();
    expectNothingHeld(api.runtime);
  });

  it('answers a listed model that cannot run with 404 model_not_found and its reason, never "unknown model"', async () => {
    const refusal = (model: string) =>
      api.client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hi' }] });
    for (const model of ['mamba', 'mamba:gguf']) {
      await expect(refusal(model)).rejects.toMatchObject({
        status: 404,
        code: 'model_not_found',
        message: expect.stringMatching(
          /^404 mamba: not supported yet: architecture mamba \(supported: llama, /,
        ),
      });
      await expect(api.client.models.retrieve(model)).rejects.toMatchObject({
        status: 404,
        message: expect.stringContaining(`cannot run: mamba: not supported yet: architecture mamba`),
      });
    }
    await expect(refusal('junk:gguf')).rejects.toMatchObject({
      status: 404,
      message: expect.stringMatching(/^404 junk\.gguf: is a GGUF file that cannot be used: /),
    });
    await expect(refusal('no-such-model')).rejects.toMatchObject({
      status: 404,
      message: expect.stringMatching(/unknown model "no-such-model"; known: .*mamba/),
    });
  });

  it('turns a runtime refusal into OpenAI errors (prompt longer than the limit)', async () => {
    const long = api.client.completions.create({
      model: TEST_MODEL_ID,
      prompt: 'word '.repeat(6000),
      max_tokens: 2,
    });
    await expect(long).rejects.toBeInstanceOf(APIError);
    await expect(long).rejects.toMatchObject({ status: 400, param: 'prompt' });
  });

  it('cuts a request at the deadline its header sets and reports finish_reason deadline, not length', async () => {
    const response = await api.client.chat.completions.create(
      {
        model: TEST_MODEL_ID,
        messages: [{ role: 'user', content: 'Tell me everything about Pemberley.' }],
        max_tokens: 4000,
        temperature: 0,
        ignore_eos: true,
      } as OpenAI.ChatCompletionCreateParamsNonStreaming,
      { headers: { 'x-first-frame-deadline-ms': '300' } },
    );
    expect(response.choices[0]!.finish_reason).toBe('deadline');
    expect(response.usage!.completion_tokens).toBeLessThan(4000);
    expect((response as WithTimings).timings).toMatchObject({ finish_reason: 'deadline' });
    expectNothingHeld(api.runtime);
  });
});

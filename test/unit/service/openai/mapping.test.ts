import { describe, expect, it } from 'vitest';
import { fromZod, paramOf } from '../../../../src-main/service/openai/errors';
import { ChatCompletionBodySchema } from '../../../../src-main/service/openai/schemas';
import { parseBody, toGenerationRequest } from '../../../../src-main/service/openai/to-request';
import type { ParsedBody } from '../../../../src-main/service/openai/to-request';
import type { OpenAiFailure } from '../../../../src-main/service/openai/types';

const ok = (parsed: ParsedBody | OpenAiFailure): ParsedBody => {
  if ('status' in parsed) throw new Error(parsed.body.error.message);
  return parsed;
};
const refused = (parsed: ParsedBody | OpenAiFailure) => ('status' in parsed ? parsed.body.error : null);

describe('OpenAI bodies → runtime requests', () => {
  it('maps a chat body: text parts joined, developer as system, sampling renamed, stop as a list', () => {
    const parsed = ok(
      parseBody('chat', {
        model: 'tiny',
        messages: [
          { role: 'developer', content: 'Be brief.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Hello, ' },
              { type: 'text', text: 'there' },
            ],
          },
          { role: 'assistant', content: null },
        ],
        max_tokens: 10,
        max_completion_tokens: 20,
        temperature: 0.5,
        top_p: 0.9,
        top_k: 40,
        seed: 3,
        stop: '\n',
        user: 'me',
        some_future_field: true,
        first_frame: { run_id: 'r', conversation_id: 'c' },
      }),
    );
    expect(toGenerationRequest(parsed, 'chatcmpl-1', 123)).toEqual({
      requestId: 'chatcmpl-1',
      modelId: 'tiny',
      prompt: {
        kind: 'chat',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hello, there' },
          { role: 'assistant', content: '' },
        ],
      },
      maxTokens: 20,
      temperature: 0.5,
      topP: 0.9,
      topK: 40,
      seed: 3,
      stop: ['\n'],
      runId: 'r',
      conversationId: 'c',
      arrivedAt: 123,
    });
  });

  it('maps min_p, repeat_penalty and the OpenAI penalties to the runtime (llama.cpp / vLLM names)', () => {
    const body = { model: 'tiny', prompt: 'x', min_p: 0.05, repeat_penalty: 1.1 };
    const penalties = { presence_penalty: 0.5, frequency_penalty: -0.25 };
    const request = toGenerationRequest(
      ok(parseBody('text', { ...body, ...penalties })),
      'cmpl-2',
      undefined,
    );
    expect(request).toMatchObject({
      minP: 0.05,
      repeatPenalty: 1.1,
      presencePenalty: 0.5,
      frequencyPenalty: -0.25,
    });
  });

  it('maps a completion body to a text prompt and leaves unset fields to the runtime defaults', () => {
    const request = toGenerationRequest(
      ok(parseBody('text', { model: 'tiny', prompt: ['Once upon'], temperature: null })),
      'cmpl-1',
      undefined,
    );
    expect(request).toEqual({
      requestId: 'cmpl-1',
      modelId: 'tiny',
      prompt: { kind: 'text', text: 'Once upon' },
    });
  });

  it('refuses what it cannot honour, naming the parameter', () => {
    const base = { model: 'tiny', messages: [{ role: 'user', content: 'hi' }] };
    expect(refused(parseBody('chat', { ...base, n: 3 }))).toMatchObject({
      param: 'n',
      message: "Invalid 'n': n other than 1 is not supported (only n = 1).",
    });
    expect(refused(parseBody('chat', { ...base, tools: [{ type: 'function' }] }))).toMatchObject({
      param: 'tools',
    });
    expect(refused(parseBody('chat', { ...base, presence_penalty: 2.5 }))).toMatchObject({
      param: 'presence_penalty',
    });
    expect(refused(parseBody('chat', { ...base, min_p: 1.5 }))).toMatchObject({ param: 'min_p' });
    expect(
      refused(
        parseBody('chat', {
          ...base,
          messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] }],
        }),
      ),
    ).toMatchObject({
      param: 'messages[0].content',
      message: expect.stringContaining('only text is supported'),
    });
    expect(refused(parseBody('chat', { ...base, messages: [] }))).toMatchObject({ param: 'messages' });
    expect(refused(parseBody('chat', { ...base, stop: ['a', 'b', 'c', 'd', 'e'] }))).toMatchObject({
      param: 'stop',
    });
    expect(refused(parseBody('text', { model: 'tiny', prompt: [1, 2, 3] }))).toMatchObject({
      param: 'prompt',
      message: expect.stringContaining('token arrays'),
    });
    expect(refused(parseBody('chat', 'not an object'))).toMatchObject({
      param: null,
      type: 'invalid_request_error',
    });
  });

  it('a request without model runs on the default model: it names none, so the runtime picks the setting', () => {
    const parsed = ok(parseBody('text', { prompt: 'x' }));
    expect(toGenerationRequest(parsed, 'cmpl-1', 1)).not.toHaveProperty('modelId');
  });

  it('names nested parameters as OpenAI does and counts further problems', () => {
    expect(paramOf(['messages', 2, 'content', 0, 'text'])).toBe('messages[2].content[0].text');
    const parsed = ChatCompletionBodySchema.safeParse({ model: '', messages: 'x', temperature: -1 });
    expect(parsed.success).toBe(false);
    if (!parsed.success)
      expect(fromZod(parsed.error).body.error.message).toMatch(
        /^Invalid 'model': .*\(and 2 more problems\)$/,
      );
  });
});

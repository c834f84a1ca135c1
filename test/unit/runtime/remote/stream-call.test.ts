import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { streamCall } from '../../../../src-main/runtime/remote/stream-call';
import type { ScriptedServer } from './scripted-server';
import { sseEvents, startScripted, writeSlowly } from './scripted-server';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const now = () => performance.timeOrigin + performance.now();
let server: ScriptedServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const call = (url: string, protocol: 'openai' | 'ollama' = 'openai') =>
  streamCall({ url, headers: { Authorization: 'Bearer k-123' }, body: { model: 'm' }, protocol, now });

describe('streamCall', () => {
  it('stamps send, headers, first byte, first content and last chunk in order, and reads llama.cpp timings', async () => {
    server = await startScripted({
      '/v1/chat/completions': (_req, res) =>
        writeSlowly(res, sseEvents(fixture('llama-cpp-stream.txt')), 'text/event-stream').then(() =>
          res.end(),
        ),
    });
    const seen = await call(`${server.baseUrl}/chat/completions`);
    expect(seen.failure).toBeNull();
    const s = seen.stamps;
    const order = [s.sentAt, s.headersAt!, s.firstByteAt!, s.firstContentAt!, s.lastChunkAt!, s.endedAt];
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(seen.text).toBe('Hello there!');
    // The role-only first chunk carries no text: it does not count as the first content.
    expect(seen.contentAts).toHaveLength(3);
    expect(seen.finishReason).toBe('stop');
    expect(seen.usage).toEqual({ promptTokens: 24, completionTokens: 3, cachedTokens: null });
    expect(seen.timings?.['prompt_ms']).toBe(41.237);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer k-123');
  });

  it('reads Ollama native NDJSON and its final durations', async () => {
    server = await startScripted({
      '/api/chat': (_req, res) =>
        writeSlowly(
          res,
          fixture('ollama-chat-stream.ndjson')
            .split('\n')
            .filter((l) => l)
            .map((l) => `${l}\n`),
          'application/x-ndjson',
        ).then(() => res.end()),
    });
    const seen = await call(`${server.origin}/api/chat`, 'ollama');
    expect(seen.failure).toBeNull();
    expect(seen.text).toBe('The sky is blue.');
    expect(seen.finishReason).toBe('stop');
    expect(seen.usage).toEqual({ promptTokens: 26, completionTokens: 4, cachedTokens: null });
    expect(seen.ollamaFinal?.['prompt_eval_duration']).toBe(342546000);
  });

  it('a refused connection is a connect failure naming the address', async () => {
    server = await startScripted({});
    const url = `${server.baseUrl}/chat/completions`;
    await server.close();
    server = null;
    const seen = await call(url);
    expect(seen.failure?.kind).toBe('connect');
    expect(seen.failure?.message).toMatch(/connection refused by http:\/\/127\.0\.0\.1:\d+/);
    expect(seen.failure?.message).not.toContain('k-123');
  });

  it('401 says the key was refused, with the server message', async () => {
    server = await startScripted({
      '/v1/chat/completions': (_req, res) => {
        res.writeHead(401, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'Incorrect API key' } }));
      },
    });
    const seen = await call(`${server.baseUrl}/chat/completions`);
    expect(seen.failure).toEqual({
      kind: 'http',
      message: expect.stringMatching(/^HTTP 401: the endpoint refused the key .* Incorrect API key$/),
    });
    expect(seen.httpStatus).toBe(401);
  });

  it('404 for an unknown model says so', async () => {
    server = await startScripted({
      '/v1/chat/completions': (_req, res) => {
        res.writeHead(404, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error: { message: "The model 'nope' does not exist" } }));
      },
    });
    const seen = await call(`${server.baseUrl}/chat/completions`);
    expect(seen.failure?.message).toMatch(/^HTTP 404: not found .* The model 'nope' does not exist$/);
  });

  it('a stream that stops mid-answer is a cut failure, and keeps the text so far', async () => {
    server = await startScripted({
      '/v1/chat/completions': async (_req, res) => {
        await writeSlowly(res, sseEvents(fixture('llama-cpp-stream.txt')).slice(0, 3), 'text/event-stream');
        res.end();
      },
    });
    const seen = await call(`${server.baseUrl}/chat/completions`);
    expect(seen.failure?.kind).toBe('cut');
    expect(seen.failure?.message).toMatch(/stopped mid-answer after 2 text events/);
    expect(seen.text).toBe('Hello there');
  });

  it('a connection destroyed mid-answer is a cut failure too', async () => {
    server = await startScripted({
      '/v1/chat/completions': async (_req, res) => {
        await writeSlowly(res, sseEvents(fixture('llama-cpp-stream.txt')).slice(0, 2), 'text/event-stream');
        res.socket?.destroy();
      },
    });
    const seen = await call(`${server.baseUrl}/chat/completions`);
    expect(seen.failure?.kind).toBe('cut');
  });

  it('malformed SSE is a malformed failure quoting the event', async () => {
    server = await startScripted({
      '/v1/chat/completions': async (_req, res) => {
        await writeSlowly(
          res,
          [...sseEvents(fixture('llama-cpp-stream.txt')).slice(0, 2), 'data: {"choices": [oops\n\n'],
          'text/event-stream',
        );
        res.end();
      },
    });
    const seen = await call(`${server.baseUrl}/chat/completions`);
    expect(seen.failure).toEqual({
      kind: 'malformed',
      message: 'a stream event that is not JSON: "{"choices": [oops"',
    });
  });

  it('an error event inside the stream is a server failure with its message', async () => {
    server = await startScripted({
      '/v1/chat/completions': async (_req, res) => {
        await writeSlowly(res, ['data: {"error":{"message":"out of memory"}}\n\n'], 'text/event-stream');
        res.end();
      },
    });
    const seen = await call(`${server.baseUrl}/chat/completions`);
    expect(seen.failure).toEqual({
      kind: 'server',
      message: 'the server ended the answer with an error: out of memory',
    });
  });

  it('a cancel stops the read and says cancelled', async () => {
    server = await startScripted({
      '/v1/chat/completions': async (_req, res) => {
        await writeSlowly(res, sseEvents(fixture('llama-cpp-stream.txt')).slice(0, 2), 'text/event-stream');
      },
    });
    const controller = new AbortController();
    const seen = await streamCall({
      url: `${server.baseUrl}/chat/completions`,
      headers: {},
      body: {},
      protocol: 'openai',
      now,
      signal: controller.signal,
      onText: () => controller.abort(),
    });
    expect(seen.failure?.kind).toBe('cancelled');
  });
});

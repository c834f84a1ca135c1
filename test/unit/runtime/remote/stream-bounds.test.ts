import type { ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { REMOTE_LIMITS } from '../../../../src-main/limits';
import { probeModels } from '../../../../src-main/runtime/remote/probe';
import type { StreamCall } from '../../../../src-main/runtime/remote/stream-call';
import { streamCall } from '../../../../src-main/runtime/remote/stream-call';
import { ManualClock } from '../../../../src-main/telemetry/clock';
import type { ScriptedServer } from './scripted-server';
import { startScripted } from './scripted-server';

let server: ScriptedServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

/** Writes `next()` until the client goes away (or `maxBytes` went out); resolves how it ended. */
function writeUntilClosed(res: ServerResponse, next: () => string, maxBytes = 64 * 1024 * 1024) {
  return new Promise<{ isClosedByClient: boolean; numBytes: number }>((resolve) => {
    let numBytes = 0;
    let isClosed = false;
    res.on('close', () => {
      isClosed = true;
      resolve({ isClosedByClient: !res.writableFinished, numBytes });
    });
    const pump = () => {
      while (!isClosed && numBytes < maxBytes) {
        const text = next();
        numBytes += text.length;
        if (!res.write(text)) return void res.once('drain', pump);
      }
      if (!isClosed) res.end();
    };
    pump();
  });
}

const openAiEvent = (content: string) =>
  `data: ${JSON.stringify({ choices: [{ delta: { content }, finish_reason: null }] })}\n\n`;

function call(url: string, over: Partial<StreamCall> = {}) {
  return streamCall({
    url,
    headers: {},
    body: { model: 'm' },
    protocol: 'openai',
    now: () => performance.now(),
    ...over,
  });
}

describe('a remote stream is bounded whatever the server sends', () => {
  it('an endless line fails the answer as malformed and closes the upstream request', async () => {
    let ended!: Promise<{ isClosedByClient: boolean; numBytes: number }>;
    server = await startScripted({
      '/v1/chat/completions': (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        res.write('data: "');
        ended = writeUntilClosed(res, () => 'x'.repeat(64 * 1024));
      },
    });
    const seen = await call(`${server.baseUrl}/chat/completions`);
    expect(seen.failure?.kind).toBe('malformed');
    expect(seen.failure?.message).toMatch(/longer than 1024 KiB/);
    const end = await ended;
    expect(end.isClosedByClient).toBe(true);
    console.log(
      `endless line: the server wrote ${(end.numBytes / 1024 / 1024).toFixed(1)} MiB before the close`,
    );
  });

  it('an event nested deep or of too many items fails as malformed before it is parsed', async () => {
    server = await startScripted({
      '/v1/chat/completions': (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        res.end(`data: ${'['.repeat(200_000)}${']'.repeat(200_000)}\n\n`);
      },
    });
    const seen = await call(`${server.baseUrl}/chat/completions`);
    expect(seen.failure).toEqual({
      kind: 'malformed',
      message: 'a stream event that is nested deeper than 32 levels: not read',
    });
  });

  it('keep-alive comments without end fail once past the answer’s characters, and close the request', async () => {
    let ended!: Promise<{ isClosedByClient: boolean; numBytes: number }>;
    server = await startScripted({
      '/v1/chat/completions': (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        ended = writeUntilClosed(res, () => ': keep-alive\n\n'.repeat(1_000));
      },
    });
    const seen = await call(`${server.baseUrl}/chat/completions`, { bounds: { maxTokens: 8 } });
    expect(seen.failure).toEqual({
      kind: 'malformed',
      message: 'the server sent more than 2 MiB for an answer of at most 8 tokens: not read further',
    });
    expect((await ended).isClosedByClient).toBe(true);
  });

  it('a huge error body is read up to its cap: the message is the first line, truncated', async () => {
    let ended!: Promise<{ isClosedByClient: boolean; numBytes: number }>;
    server = await startScripted({
      '/v1/chat/completions': (_req, res) => {
        res.writeHead(500, { 'Content-Type': 'text/plain' });
        ended = writeUntilClosed(res, () => 'overloaded '.repeat(6_000));
      },
    });
    const seen = await call(`${server.baseUrl}/chat/completions`);
    expect(seen.failure?.kind).toBe('http');
    expect(seen.failure?.message).toMatch(/^HTTP 500: the server failed — overloaded overloaded/);
    expect(seen.failure!.message.length).toBeLessThan(400);
    expect((await ended).isClosedByClient).toBe(true);
  });

  it('a model list past its cap is refused unread', async () => {
    server = await startScripted({
      '/v1/models': (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write('{"data": [');
        void writeUntilClosed(res, () => '{"id": "m", "owned_by": "x"},'.repeat(1_000));
      },
    });
    const probe = await probeModels(server.baseUrl, {});
    expect(probe).toMatchObject({ isReachable: false, error: expect.stringMatching(/more than 4 MiB/) });
  });

  it('a model list within its bytes but of too many items is refused before it is parsed', async () => {
    const models = Array.from({ length: 20_000 }, (_, i) => ({ id: `m${i}` }));
    server = await startScripted({
      '/v1/models': (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ data: models }));
      },
    });
    const probe = await probeModels(server.baseUrl, {});
    expect(probe).toMatchObject({ isReachable: false, error: expect.stringMatching(/too large to read/) });
  });

  it('a server that never answers fails at the first-byte limit, in words that name it', async () => {
    server = await startScripted({ '/v1/chat/completions': () => undefined });
    const clock = new ManualClock();
    const seen = call(`${server.baseUrl}/chat/completions`, {
      now: () => clock.now(),
      callAt: (atMs, fire) => clock.callAt(atMs, fire),
      bounds: { firstByteMs: 120_000 },
    });
    await vi.waitFor(() => expect(server!.requests).toHaveLength(1));
    clock.advance(119_999);
    clock.advance(1);
    const result = await seen;
    expect(result.failure).toEqual({
      kind: 'timeout',
      message: expect.stringMatching(
        /sent nothing within 120 s of the request \(the remote first-byte limit/,
      ),
    });
    expect(result.stamps.endedAt - result.stamps.sentAt).toBe(120_000);
  });

  it('a server that takes the connection and never completes TLS fails at the connect limit, naming it', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const clock = new ManualClock();
    try {
      const seen = call(`https://127.0.0.1:${port}/v1/chat/completions`, {
        now: () => clock.now(),
        callAt: (atMs, fire) => clock.callAt(atMs, fire),
      });
      await vi.waitFor(() => expect(sockets).toHaveLength(1));
      clock.advance(REMOTE_LIMITS.connectTimeoutMs);
      const result = await seen;
      expect(result.failure).toEqual({
        kind: 'timeout',
        message: `https://127.0.0.1:${port} did not complete the connection within ${REMOTE_LIMITS.connectTimeoutMs / 1_000} s (the remote connect limit)`,
      });
      expect(result.stamps.endedAt - result.stamps.sentAt).toBe(REMOTE_LIMITS.connectTimeoutMs);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('a server that goes silent mid-answer fails at the idle limit, keeping the text so far', async () => {
    server = await startScripted({
      '/v1/chat/completions': (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        res.write(openAiEvent('Hello'));
      },
    });
    const clock = new ManualClock();
    const texts: string[] = [];
    const seen = call(`${server.baseUrl}/chat/completions`, {
      now: () => clock.now(),
      callAt: (atMs, fire) => clock.callAt(atMs, fire),
      bounds: { idleMs: 30_000 },
      onText: (text) => texts.push(text),
    });
    await vi.waitFor(() => expect(texts).toEqual(['Hello']));
    clock.advance(30_000);
    const result = await seen;
    expect(result.failure?.kind).toBe('timeout');
    expect(result.failure?.message).toMatch(/went silent for 30 s mid-answer/);
    expect(result.text).toBe('Hello');
  });

  it('a stream past max_tokens is cut there (finish length) and the upstream request closed', async () => {
    let ended!: Promise<{ isClosedByClient: boolean; numBytes: number }>;
    server = await startScripted({
      '/v1/chat/completions': (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        ended = writeUntilClosed(res, () => openAiEvent('ab'));
      },
    });
    const seen = await call(`${server.baseUrl}/chat/completions`, { bounds: { maxTokens: 8 } });
    expect(seen.failure).toBeNull();
    expect(seen.isCutAtMaxTokens).toBe(true);
    expect(seen.contentAts).toHaveLength(8);
    expect(seen.text).toBe('ab'.repeat(8));
    expect((await ended).isClosedByClient).toBe(true);
  });

  it('one huge text event is cut to the budget’s characters', async () => {
    server = await startScripted({
      '/v1/chat/completions': (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        res.end(openAiEvent('z'.repeat(500_000)));
      },
    });
    const seen = await call(`${server.baseUrl}/chat/completions`, { bounds: { maxTokens: 8 } });
    expect(seen.text).toHaveLength(8 * REMOTE_LIMITS.maxCharsPerToken);
    expect(seen.isCutAtMaxTokens).toBe(true);
  });
});

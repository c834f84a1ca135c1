import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHttpHost } from '../../../../src-main/host/http/http-host';
import { parseRequestTarget } from '../../../../src-main/host/http/request-target';
import type { HttpHost } from '../../../../src-main/host/http/http-host';
import { openAiRoutes } from '../../../../src-main/host/openai/handle-openai';
import { rawRequest } from './raw-request';
import { rawExchange, statusOfRaw } from '../../../support/raw-socket';
import { ServiceDouble } from './service-double';
import { createOpenAiService } from '../../../../src-main/service/openai/service';
import { fakeRuntime } from '../../service/openai/fake-runtime';

describe('request targets', () => {
  it.each(['//[', 'http://a:99999/', 'http://%zz/', '/%zz', '/api/call/%E0%A4%A'])(
    'refuses %j with a reason instead of throwing',
    (target) => {
      const parsed = parseRequestTarget(target);
      expect(parsed.ok).toBe(false);
      expect(!parsed.ok && parsed.message).toMatch(/^Bad request: /);
    },
  );
});

// One host for every test below: the page, /api over a service double, and /v1 over a fake runtime.
let host: HttpHost;
let dir: string;
const service = new ServiceDouble();
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'ff-hostile-'));
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>t</title>');
  host = await startHttpHost({
    service,
    rendererDir: dir,
    port: 0,
    routes: [openAiRoutes({ openai: createOpenAiService(fakeRuntime()) })],
  });
});
afterAll(async () => {
  await host.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the host answers hostile request lines with 400 and keeps serving', () => {
  it.each([
    'GET //[ HTTP/1.1',
    'GET http://a:99999/ HTTP/1.1',
    'GET http://%zz/ HTTP/1.1',
    'GET /%zz HTTP/1.1',
    'POST /api/call/%E0%A4%A HTTP/1.1',
    'GET /v1/models/%zz HTTP/1.1',
    'GET /assets/%c0%af HTTP/1.1',
  ])('%s → 400 with a message, then the next request is served', async (line) => {
    const response = await rawExchange(host.port, `${line}\r\nHost: 127.0.0.1:${host.port}\r\n\r\n`);
    expect(statusOfRaw(response)).toBe(400);
    expect(response).toMatch(/Bad request: .*(not a valid URL path|invalid percent-encoding)/);
    const next = await rawRequest(host.port, '/');
    expect(next.status).toBe(200);
  });

  it('answers a request line Node cannot parse with 400 (the parser refuses it) and keeps serving', async () => {
    const response = await rawExchange(host.port, `GET /a b c\r\nHost: x\r\n\r\n`);
    expect(statusOfRaw(response)).toBe(400);
    expect((await rawRequest(host.port, '/')).status).toBe(200);
  });
});

/** A raw connection to the host: what it has written so far, and a wait for more of it. */
function openConnection(port: number) {
  const socket = connect(port, '127.0.0.1');
  let text = '';
  let isClosed = false;
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  socket.on('close', () => (isClosed = true));
  socket.on('error', () => undefined);
  return {
    socket,
    /** Resolves once what the host wrote matches `pattern` (or it closed), within 10 s. */
    until: (pattern: RegExp | 'closed') =>
      vi.waitFor(() => expect(pattern === 'closed' ? isClosed : pattern.test(text)).toBe(true), {
        timeout: 10_000,
      }),
    text: () => text,
    isClosed: () => isClosed,
  };
}

describe('bodies whose parse would be the attack are refused before parsing', () => {
  const deep = `{"messages": ${'['.repeat(500_000)}${']'.repeat(500_000)}}`;
  const post = (path: string, body: string) =>
    rawRequest(host.port, path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });

  it('a 500k-deep /api/call body: 400 naming the depth limit, and the service never sees it', async () => {
    const numCalls = service.calls.length;
    const answer = await post('/api/call/chat.send', deep);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toEqual({
      ok: false,
      error: {
        code: 'invalid_input',
        message: 'the body is nested deeper than 64 levels; it was refused before parsing',
      },
    });
    expect(service.calls).toHaveLength(numCalls);
  });

  it.each([
    ['/api/call/chat.send', 'the body is nested deeper than 64 levels; it was refused before parsing'],
    [
      '/v1/chat/completions',
      'The request body is nested deeper than 64 levels; it was refused before parsing.',
    ],
  ])(
    'answers a too-deep %s body from its first bytes, drops the rest, and serves the next request on that connection',
    async (target, reason) => {
      const numCalls = service.calls.length;
      const connection = openConnection(host.port);
      // A 1 MB body is declared but only its first 1,000 bytes are sent: the answer comes anyway.
      connection.socket.write(
        `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\n` +
          `Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n${'['.repeat(1_000)}`,
      );
      await connection.until(/\r\n\r\n[\s\S]*refused before parsing/);
      expect(statusOfRaw(connection.text())).toBe(400);
      expect(connection.text()).toContain(reason);
      expect(connection.text()).not.toMatch(/connection: close/i);
      // The client writes the rest, as a client does, and then asks again on the same connection.
      connection.socket.write(']'.repeat(999_000));
      connection.socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\n\r\n`);
      await connection.until(/HTTP\/1\.1 200 OK/);
      expect(connection.isClosed()).toBe(false);
      expect(service.calls).toHaveLength(numCalls);
      connection.socket.destroy();
    },
  );

  it('destroys the connection of a refused body that goes on past the byte limit', async () => {
    const connection = openConnection(host.port);
    const chunk = (text: string) => `${text.length.toString(16)}\r\n${text}\r\n`;
    connection.socket.write(
      `POST /api/call/chat.send HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\n` +
        `Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunk('['.repeat(1_000))}`,
    );
    await connection.until(/refused before parsing/);
    // Go on writing until the host cuts the connection: it must do so near the limit, not later.
    let numWritten = 0;
    while (!connection.isClosed() && numWritten < 8 * 1024 * 1024) {
      connection.socket.write(chunk(' '.repeat(64 * 1024)));
      numWritten += 64 * 1024;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await connection.until('closed');
    expect(numWritten).toBeLessThan(2 * 1024 * 1024);
    expect((await rawRequest(host.port, '/')).status).toBe(200);
  });

  it('a 500k-deep /v1 body: 400 invalid_json naming the depth limit', async () => {
    const answer = await post('/v1/chat/completions', deep);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({
      error: {
        message: 'The request body is nested deeper than 64 levels; it was refused before parsing.',
        code: 'invalid_json',
      },
    });
  });

  it('a body of 32,768+ items (30,000 one-character messages): 400 naming the item limit', async () => {
    const messages = Array.from({ length: 30_000 }, () => ({ role: 'user', content: 'x' }));
    const answer = await post('/v1/chat/completions', JSON.stringify({ model: 'm', messages }));
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('The request body holds more than 32,768 items');
  });

  it('a chat of 4,096 messages (the most the default token limit holds) passes the count', async () => {
    const messages = Array.from({ length: 4_096 }, () => ({ role: 'user', content: 'x' }));
    const answer = await post('/v1/chat/completions', JSON.stringify({ model: 'm', messages }));
    expect(answer.status).toBe(200);
  });
});

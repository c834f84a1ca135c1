import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRequestTarget, startHttpHost } from '../../../../src-main/host/http';
import type { HttpHost } from '../../../../src-main/host/http';
import { openAiRoutes } from '../../../../src-main/host/openai';
import { rawRequest } from './raw-request';
import { rawExchange, statusOfRaw } from '../../../support/raw-socket';
import { ServiceDouble } from './service-double';
import { createOpenAiService } from '../../../../src-main/service/openai';
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

/**
 * Sends `head` and resolves with what the host wrote once the host itself closes the connection;
 * fails if it keeps the connection open (waiting for the rest of a body it refused) for 10 s.
 */
function answerThenClose(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error('the host kept the connection open')));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
    socket.write(head);
  });
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
    'answers a too-deep %s body from its first bytes, closes that connection itself, and keeps serving',
    async (target, reason) => {
      const numCalls = service.calls.length;
      // A 1 MB body is declared but only its first 1,000 bytes are sent: the answer comes anyway.
      const head =
        `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\n` +
        `Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n${'['.repeat(1_000)}`;
      const response = await answerThenClose(host.port, head);
      expect(statusOfRaw(response)).toBe(400);
      expect(response).toMatch(/connection: close/i);
      expect(response).toContain(reason);
      expect(service.calls).toHaveLength(numCalls);
      expect((await rawRequest(host.port, '/')).status).toBe(200);
    },
  );

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

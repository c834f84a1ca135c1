import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exposureProblem, isAuthorized } from '../../../../src-main/host/http/auth';
import { startHttpHost } from '../../../../src-main/host/http/http-host';
import type { HttpHost } from '../../../../src-main/host/http/http-host';
import { openAiRoutes } from '../../../../src-main/host/openai/handle-openai';
import { createOpenAiService } from '../../../../src-main/service/openai/service';
import { fakeRuntime } from '../../service/openai/fake-runtime';
import { callRaw, rawRequest } from './raw-request';
import { STATUS_ANSWER, ServiceDouble } from './service-double';

const KEY = 'correct horse battery staple';
const bearer = { authorization: `Bearer ${KEY}` };
const basic = { authorization: `Basic ${Buffer.from(`anyone:${KEY}`).toString('base64')}` };

describe('the API key check', () => {
  it('accepts the key as a Bearer token or as the Basic password, and nothing else', () => {
    expect(isAuthorized(bearer.authorization, KEY)).toBe(true);
    expect(isAuthorized(basic.authorization, KEY)).toBe(true);
    expect(isAuthorized(`Basic ${Buffer.from(`${KEY}:`).toString('base64')}`, KEY)).toBe(false);
    expect(isAuthorized('Bearer wrong', KEY)).toBe(false);
    expect(isAuthorized(undefined, KEY)).toBe(false);
    expect(isAuthorized(KEY, KEY)).toBe(false);
  });

  it('refuses to expose a host beyond loopback without a key unless the user waives it', () => {
    for (const loopback of ['127.0.0.1', '127.1.2.3', '::1', 'localhost'])
      expect(exposureProblem(loopback, false, false)).toBeNull();
    for (const exposed of ['0.0.0.0', '::', '192.168.1.20'])
      expect(exposureProblem(exposed, false, false)).toMatch(/FIRST_FRAME_API_KEY.*--no-key/);
    expect(exposureProblem('0.0.0.0', true, false)).toBeNull();
    expect(exposureProblem('0.0.0.0', false, true)).toBeNull();
  });

  it('startHttpHost itself refuses 0.0.0.0 without a key', async () => {
    const error = await startHttpHost({
      service: new ServiceDouble(),
      rendererDir: tmpdir(),
      port: 0,
      host: '0.0.0.0',
    }).catch((e: Error) => e);
    expect(String(error)).toMatch(/refusing to listen on 0\.0\.0\.0 without an API key/);
  });

  it('`npm run serve -- --host 0.0.0.0` exits 2 with the reason when no key is set', async () => {
    const env = { ...process.env, FIRST_FRAME_API_KEY: '' };
    const result = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'src-main/cli/serve.ts', '--host', '0.0.0.0', '--port', '0'],
      { env, timeout: 30_000 },
    ).catch((error: { code: number; stderr: string }) => error);
    expect('code' in result && result.code).toBe(2);
    expect(result.stderr).toMatch(/refusing to listen on 0\.0\.0\.0 without an API key.*--no-key/s);
  });
});

describe('a host started with a key protects every route', () => {
  let host: HttpHost;
  let dir: string;
  const service = new ServiceDouble({
    'app.status': () => STATUS_ANSWER,
    'runs.exportCsv': () => ({ fileName: 'live.csv', csv: 'a\n', numRows: 0 }),
  });

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ff-key-'));
    writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>t</title>');
    host = await startHttpHost({
      service,
      rendererDir: dir,
      port: 0,
      apiKey: KEY,
      routes: [openAiRoutes({ openai: createOpenAiService(fakeRuntime()) })],
      events: { flushIntervalMs: 10, keepAliveMs: 60_000, maxBufferedEvents: 100 },
    });
  });
  afterAll(async () => {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(['/', '/index.html', '/api/events', '/api/export.csv', '/v1/models', '/nowhere'])(
    'GET %s without the key → 401, and nothing of the route is served',
    async (route) => {
      const res = await rawRequest(host.port, route);
      expect(res.status).toBe(401);
      expect(res.text).not.toContain('<title>');
      expect(String(res.headers['www-authenticate'])).toMatch(route.startsWith('/v1') ? /^Bearer/ : /^Basic/);
    },
  );

  it('answers /api calls without the key with a Result error and /v1 with OpenAI’s error shape', async () => {
    const call = await callRaw(host.port, 'app.status', {});
    expect(call.status).toBe(401);
    expect(JSON.parse(call.text)).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    const models = await rawRequest(host.port, '/v1/models', { headers: { authorization: 'Bearer nope' } });
    expect(JSON.parse(models.text)).toMatchObject({ error: { code: 'invalid_api_key' } });
  });

  it('serves every route to a Bearer key and to a browser’s Basic login', async () => {
    for (const headers of [bearer, basic]) {
      expect((await rawRequest(host.port, '/', { headers })).status).toBe(200);
      expect((await callRaw(host.port, 'app.status', {}, headers)).status).toBe(200);
      expect((await rawRequest(host.port, '/api/export.csv', { headers })).status).toBe(200);
      expect((await rawRequest(host.port, '/v1/models', { headers })).status).toBe(200);
    }
    const stream = await fetch(`${host.url}api/events`, { headers: basic });
    expect(stream.status).toBe(200);
    await stream.body?.cancel();
  });
});

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpHost } from '../../../../src-main/host/http/http-host';
import type { HttpHost } from '../../../../src-main/host/http/http-host';
import { callRaw, rawRequest } from './raw-request';
import { STATUS_ANSWER, ServiceDouble } from './service-double';

describe('headless HTTP host', () => {
  let host: HttpHost;
  let dir: string;
  const service = new ServiceDouble({
    'app.status': () => STATUS_ANSWER,
    'runs.exportCsv': () => ({
      fileName: 'live.csv',
      csv: 'requestId,ttftMs\n' + 'r,1\n'.repeat(50_000),
      numRows: 50_000,
    }),
  });

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ff-http-'));
    mkdirSync(path.join(dir, 'assets'));
    writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>t</title>');
    writeFileSync(path.join(dir, 'assets', 'app-1.js'), 'export {};');
    writeFileSync(path.join(tmpdir(), 'ff-secret.txt'), 'TOP-SECRET-CONTENT');
    host = await startHttpHost({ service, rendererDir: dir, port: 0 });
  });
  afterAll(async () => {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('listens on 127.0.0.1 on a free port and prints that URL', () => {
    expect(host.url).toBe(`http://127.0.0.1:${host.port}/`);
    expect(host.isPublic).toBe(false);
  });

  it('serves index.html with a strict CSP and nosniff', async () => {
    const res = await rawRequest(host.port, '/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    const csp = String(res.headers['content-security-policy']);
    for (const directive of [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ]) {
      expect(csp).toContain(directive);
    }
    expect(csp).not.toMatch(/unsafe-(inline|eval)/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect((await rawRequest(host.port, '/assets/app-1.js')).headers['cache-control']).toMatch(/immutable/);
  });

  it('never serves a file outside the renderer folder', async () => {
    for (const probe of [
      '/../ff-secret.txt',
      '/%2e%2e/ff-secret.txt',
      '/assets/..%2f..%2fff-secret.txt',
      '/x.js',
    ]) {
      const res = await rawRequest(host.port, probe);
      expect(res.text).not.toContain('TOP-SECRET-CONTENT');
    }
  });

  it('answers 403 with a clear message for a foreign Host or Origin', async () => {
    const rebound = await rawRequest(host.port, '/', { headers: { host: `evil.example:${host.port}` } });
    expect(rebound.status).toBe(403);
    expect(rebound.text).toMatch(/DNS-rebinding/);
    const foreign = await callRaw(host.port, 'app.status', {}, { origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
  });

  it('calls a method and returns its Result', async () => {
    const res = await callRaw(host.port, 'app.status', {}, { origin: `http://localhost:${host.port}` });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({ ok: true, value: STATUS_ANSWER });
  });

  it('maps errors: bad JSON 400, unknown method 404, invalid input 400, wrong verb 405, too large 413', async () => {
    const badJson = await callRaw(host.port, 'app.status', '{nope');
    expect([badJson.status, JSON.parse(badJson.text).error.code]).toEqual([400, 'invalid_input']);
    const unknown = await callRaw(host.port, 'nope.nothing', {});
    expect([unknown.status, JSON.parse(unknown.text).error.code]).toEqual([404, 'not_found']);
    const invalid = await callRaw(host.port, 'chat.cancel', { requestId: 5 });
    expect([invalid.status, JSON.parse(invalid.text).ok]).toEqual([400, false]);
    expect((await rawRequest(host.port, '/api/call/app.status')).status).toBe(405);
    const tooLarge = await callRaw(host.port, 'chat.cancel', { requestId: 'x'.repeat(2 * 1024 * 1024) });
    expect(tooLarge.status).toBe(413);
    const plain = await callRaw(host.port, 'app.status', {}, { 'content-type': 'text/plain' });
    expect(plain.status).toBe(415);
  });

  it('streams a CSV export as a download', async () => {
    const res = await rawRequest(host.port, '/api/export.csv');
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toBe('attachment; filename="live.csv"');
    expect(res.text.split('\n')).toHaveLength(50_002);
    expect(service.calls.at(-1)).toEqual({ method: 'runs.exportCsv', input: { runId: null } });
  });
});

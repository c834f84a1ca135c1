import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EndpointInputSchema, normalizeBaseUrl } from '../../../../src-main/runtime/remote/endpoint-input';
import { parseRemoteRef, RemoteEndpoints, remoteRef } from '../../../../src-main/runtime/remote/endpoints';
import type { ScriptedServer } from './scripted-server';
import { modelsScript, startScripted } from './scripted-server';

let server: ScriptedServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});
const tempDir = () => mkdtempSync(path.join(tmpdir(), 'ff-endpoints-'));
const modelsRoute = (ids: string[], ownedBy = 'vllm') => ({ '/v1/models': modelsScript(ids, ownedBy) });

describe('endpoint input', () => {
  it('normalizes a bare origin to its /v1 and drops trailing slashes', () => {
    expect(normalizeBaseUrl('http://gpu-box:8000')).toBe('http://gpu-box:8000/v1');
    expect(normalizeBaseUrl(' https://api.example.com/v1/ ')).toBe('https://api.example.com/v1');
  });

  it.each([
    ['file:///etc/passwd', /only http:\/\/ and https:\/\//],
    ['javascript:alert(1)', /only http:\/\/ and https:\/\//],
    ['ftp://host/v1', /only http:\/\/ and https:\/\//],
    ['http://user:secret@host/v1', /key field/],
    ['http://host/v1?key=1', /no query or fragment/],
    ['not a url', /is not a URL/],
  ])('refuses %s with a reason', (url, reason) => {
    const result = EndpointInputSchema.safeParse({ name: 'x', baseUrl: url });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(reason);
  });

  it('a key must be one printable line (it becomes a header)', () => {
    const result = EndpointInputSchema.safeParse({ name: 'x', baseUrl: 'http://h/v1', apiKey: 'a\nb' });
    expect(result.success).toBe(false);
  });

  it('remote references carry the endpoint and the model as the server spells it', () => {
    expect(remoteRef('gpu-box', 'meta-llama/Llama-3.1-8B')).toBe('@gpu-box/meta-llama/Llama-3.1-8B');
    expect(parseRemoteRef('@gpu-box/meta-llama/Llama-3.1-8B')).toEqual({
      endpointId: 'gpu-box',
      modelId: 'meta-llama/Llama-3.1-8B',
    });
    expect(parseRemoteRef('ff-austen-mini:q4')).toBeNull();
    expect(parseRemoteRef('@/x')).toBeNull();
  });
});

describe('RemoteEndpoints', () => {
  it('adds an endpoint, keeps its key in a 0600 file outside the endpoints file, and lists its models', async () => {
    server = await startScripted(modelsRoute(['meta-llama/Llama-3.1-8B-Instruct']));
    const dir = tempDir();
    const endpoints = new RemoteEndpoints(dir);
    const added = await endpoints.add({ name: 'GPU box', baseUrl: server.origin, apiKey: 'sk-secret-1' });
    expect(added).toMatchObject({
      endpointId: 'gpu-box',
      baseUrl: `${server.origin}/v1`,
      reachability: 'reachable',
      resolvedEngine: 'vllm',
      hasKey: true,
      lastError: null,
      models: [{ modelId: 'meta-llama/Llama-3.1-8B-Instruct', ownedBy: 'vllm' }],
    });
    expect(JSON.stringify(added)).not.toContain('sk-secret-1');
    expect(readFileSync(path.join(dir, 'endpoints.json'), 'utf8')).not.toContain('sk-secret-1');
    const keyFile = path.join(dir, 'endpoint-keys', 'gpu-box.key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(keyFile)).mode & 0o777).toBe(0o700);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-secret-1');
    // A second registry over the same folder finds it again (the key still in its file).
    const reopened = new RemoteEndpoints(dir);
    expect(reopened.list().map((e) => e.endpointId)).toEqual(['gpu-box']);
    expect(reopened.headersOf('gpu-box')).toEqual({ Authorization: 'Bearer sk-secret-1' });
  });

  it('an unreachable endpoint is refused unsaved, or kept with its error when asked; removing it deletes the key', async () => {
    const dir = tempDir();
    const endpoints = new RemoteEndpoints(dir);
    server = await startScripted({});
    const origin = server.origin;
    await server.close();
    server = null;
    const input = { name: 'Gone', baseUrl: `${origin}/v1`, apiKey: 'k-gone-1' };
    await expect(endpoints.add(input)).rejects.toThrow(/failed its check: .*connection refused/);
    expect(endpoints.list()).toEqual([]);
    expect(() => statSync(path.join(dir, 'endpoint-keys', 'gone.key'))).toThrow();
    const added = await endpoints.add(input, { saveUnreachable: true });
    expect(added.reachability).toBe('unreachable');
    expect(added.lastError).toMatch(/connection refused/);
    expect(endpoints.remove('gone')).toBe(true);
    expect(() => statSync(path.join(dir, 'endpoint-keys', 'gone.key'))).toThrow();
    expect(endpoints.list()).toEqual([]);
  });

  it('401 on /v1/models is a reachability error that names the key', async () => {
    server = await startScripted({
      '/v1/models': (_req, res) => {
        res.writeHead(401, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'invalid api key' } }));
      },
    });
    const endpoints = new RemoteEndpoints(tempDir());
    await expect(endpoints.add({ name: 'Locked', baseUrl: server.baseUrl })).rejects.toThrow(
      /HTTP 401: the endpoint refused the key/,
    );
    const added = await endpoints.add({ name: 'Locked', baseUrl: server.baseUrl }, { saveUnreachable: true });
    expect(added.reachability).toBe('unreachable');
    expect(added.lastError).toMatch(/^HTTP 401: the endpoint refused the key/);
  });

  it('names are made unique as ids; a broken endpoints file is left alone and said', async () => {
    server = await startScripted(modelsRoute(['m'], 'llamacpp'));
    const dir = tempDir();
    const endpoints = new RemoteEndpoints(dir);
    await endpoints.add({ name: 'Box', baseUrl: server.baseUrl });
    const second = await endpoints.add({ name: 'Box', baseUrl: server.baseUrl });
    expect(second.endpointId).toBe('box-2');
    expect(second.resolvedEngine).toBe('llama.cpp');
    writeFileSync(path.join(dir, 'endpoints.json'), '{not json');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const broken = new RemoteEndpoints(dir);
    expect(broken.loadError).toMatch(/not valid \(left untouched\)/);
    expect(warn).toHaveBeenCalledOnce();
    warn.mockRestore();
    await expect(broken.add({ name: 'New', baseUrl: server.baseUrl })).rejects.toThrow(/cannot be saved/);
    expect(readFileSync(path.join(dir, 'endpoints.json'), 'utf8')).toBe('{not json');
  });
});

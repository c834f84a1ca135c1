import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpHost } from '../../../src-main/host/http';
import type { HttpHost } from '../../../src-main/host/http';
import type { PushedEvent } from '../../../src-main/service/contract';
import { createHttpBridge } from '../../../src-renderer/bridge';
import { rawRequest } from '../host/http/raw-request';
import { ServiceDouble } from '../host/http/service-double';

const chunk = (i: number): PushedEvent => ({
  name: 'request.chunk',
  payload: { requestId: 'r1', text: `t${i}`, numTokens: 1 },
});
const waitFor = async (check: () => boolean, timeoutMs = 3000) => {
  const startedAt = performance.now();
  while (!check()) {
    if (performance.now() - startedAt > timeoutMs) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('HTTP transport against the headless host', () => {
  let host: HttpHost;
  const service = new ServiceDouble({ 'chat.cancel': () => ({ wasRunning: true }) });

  beforeAll(async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ff-bridge-'));
    writeFileSync(path.join(dir, 'index.html'), '<!doctype html>');
    host = await startHttpHost({
      service,
      rendererDir: dir,
      port: 0,
      events: { flushIntervalMs: 50, keepAliveMs: 30, maxBufferedEvents: 1000 },
    });
  });
  afterAll(() => host.close());

  const bridge = () => createHttpBridge({ baseUrl: host.url.replace(/\/$/, '') });

  it('calls a method and validates the Result', async () => {
    expect(await bridge().call('chat.cancel', { requestId: 'r1' })).toEqual({
      ok: true,
      value: { wasRunning: true },
    });
    const failed = await bridge().call('app.status', {});
    expect(failed).toMatchObject({ ok: false, error: { code: 'unavailable' } });
  });

  it('reports an unreachable host as unavailable instead of throwing', async () => {
    const result = await createHttpBridge({ baseUrl: 'http://127.0.0.1:1' }).call('app.status', {});
    expect(result).toMatchObject({ ok: false, error: { code: 'unavailable' } });
  });

  it('delivers pushed events in batches, at most ~20 messages per second', async () => {
    const batches: PushedEvent[][] = [];
    const unsubscribe = bridge().subscribe((events) => batches.push(events));
    await waitFor(() => service.listeners.size === 1);
    const startedAt = performance.now();
    for (let i = 0; i < 400; i++) {
      service.push(chunk(i));
      await new Promise((r) => setTimeout(r, 1));
    }
    await waitFor(() => batches.flat().length === 400);
    const elapsedS = (performance.now() - startedAt) / 1000;
    expect(batches.flat().map((e) => (e.payload as { text: string }).text)).toEqual(
      Array.from({ length: 400 }, (_, i) => `t${i}`),
    );
    expect(batches.length).toBeLessThanOrEqual(Math.ceil(elapsedS * 20) + 2);
    unsubscribe();
    await waitFor(() => service.listeners.size === 0);
  });

  it('sends the first chunk of a request at once instead of waiting for the next flush slot', async () => {
    const arrivals: { text: string; at: number }[] = [];
    const unsubscribe = bridge().subscribe((events, receivedAt) => {
      for (const e of events)
        if (e.name === 'request.chunk') arrivals.push({ text: e.payload.text, at: receivedAt });
    });
    await waitFor(() => service.listeners.size === 1);
    const stats = { atWallMs: 1, numRunning: 0, numWaiting: 0, numSeats: 4, maxQueue: 64 };
    service.push({ name: 'engine.stats', payload: stats });
    await new Promise((r) => setTimeout(r, 5));
    const sentAt = performance.now();
    service.push({ name: 'request.chunk', payload: { requestId: 'fresh', text: 'first', numTokens: 1 } });
    service.push({ name: 'request.chunk', payload: { requestId: 'fresh', text: 'second', numTokens: 1 } });
    await waitFor(() => arrivals.length === 2);
    expect(arrivals[0]!.at - sentAt).toBeLessThan(30);
    unsubscribe();
    await waitFor(() => service.listeners.size === 0);
  });

  it('sends keep-alive comments and drops the subscription when the client goes away', async () => {
    const before = service.listeners.size;
    const res = await new Promise<string>((resolve) => {
      const abort = new AbortController();
      void fetch(`${host.url}api/events`, { signal: abort.signal }).then(async (response) => {
        const reader = response.body!.getReader();
        let text = '';
        while (!text.includes(': keep-alive')) text += new TextDecoder().decode((await reader.read()).value);
        abort.abort();
        resolve(text);
      });
    });
    expect(res).toContain(': keep-alive');
    await waitFor(() => service.listeners.size === before);
  });

  it('refuses an event stream requested from a foreign origin', async () => {
    const res = await rawRequest(host.port, '/api/events', { headers: { origin: 'http://evil.example' } });
    expect(res.status).toBe(403);
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHttpHost } from '../../../src-main/host/http/http-host';
import type { HttpHost } from '../../../src-main/host/http/http-host';
import type { PushedEvent } from '../../../src-main/service/contract/events';
import { createHttpBridge } from '../../../src-renderer/bridge/http-transport';
import { rawRequest } from '../host/http/raw-request';
import { ServiceDouble } from '../host/http/service-double';

const chunk = (i: number): PushedEvent => ({
  name: 'request.chunk',
  payload: { requestId: 'r1', text: `t${i}`, numTokens: 1 },
});
/** Waits until `check` holds (vi.waitFor polls every 5 ms, up to 5 s). */
const waitFor = (check: () => boolean) =>
  vi.waitFor(() => expect(check()).toBe(true), { timeout: 5_000, interval: 5 });
const numTokensOf = (events: PushedEvent[]) =>
  events.reduce((sum, e) => sum + (e.name === 'request.chunk' ? e.payload.numTokens : 0), 0);
const textOf = (events: PushedEvent[]) =>
  events.map((e) => (e.name === 'request.chunk' ? e.payload.text : '')).join('');

describe('HTTP transport against the headless host', () => {
  let host: HttpHost;
  let rendererDir: string;
  const service = new ServiceDouble({ 'chat.cancel': () => ({ wasRunning: true }) });

  beforeAll(async () => {
    rendererDir = mkdtempSync(path.join(tmpdir(), 'ff-bridge-'));
    writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html>');
    host = await startHttpHost({
      service,
      rendererDir,
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
    // Consecutive chunks of one request travel merged (one policy with IPC): nothing is lost.
    await waitFor(() => numTokensOf(batches.flat()) === 400);
    const elapsedS = (performance.now() - startedAt) / 1000;
    expect(textOf(batches.flat())).toBe(Array.from({ length: 400 }, (_, i) => `t${i}`).join(''));
    expect(batches.length).toBeLessThanOrEqual(Math.ceil(elapsedS * 20) + 2);
    unsubscribe();
    await waitFor(() => service.listeners.size === 0);
  });

  it('sends the first chunk of a request at once instead of waiting for the next flush slot', async () => {
    // A host whose flush slots are 2 s apart: only the first-chunk rule can deliver it sooner.
    const slow = await startHttpHost({
      service,
      rendererDir,
      port: 0,
      events: { flushIntervalMs: 2_000, keepAliveMs: 30_000, maxBufferedEvents: 1000 },
    });
    const received: { event: PushedEvent; at: number }[] = [];
    const unsubscribe = createHttpBridge({ baseUrl: slow.url.replace(/\/$/, '') }).subscribe((events, at) =>
      received.push(...events.map((event) => ({ event, at }))),
    );
    await waitFor(() => service.listeners.size === 1);
    const stats = { atWallMs: 1, numRunning: 0, numWaiting: 0, numSeats: 4, maxQueue: 64 };
    service.push({ name: 'engine.stats', payload: stats });
    await waitFor(() => received.length === 1); // a send just went out: the next slot is 2 s away
    const pushedAt = performance.now();
    service.push({ name: 'request.chunk', payload: { requestId: 'fresh', text: 'first', numTokens: 1 } });
    await waitFor(() => received.length === 2);
    const waitedMs = received[1]!.at - pushedAt;
    console.log(
      `first chunk arrived ${waitedMs.toFixed(1)} ms after it was pushed (flush slots 2,000 ms apart)`,
    );
    expect(received[1]!.event).toMatchObject({ name: 'request.chunk', payload: { text: 'first' } });
    expect(waitedMs).toBeLessThan(1_000);
    unsubscribe();
    await waitFor(() => service.listeners.size === 0);
    await slow.close();
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

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { startHttpHost } from '../../../src-main/host/http/http-host';
import type { PushedEvent } from '../../../src-main/service/contract/events';
import { createHttpBridge } from '../../../src-renderer/bridge/http-transport';
import type { ConnectionState } from '../../../src-renderer/bridge/bridge';
import { ServiceDouble } from '../host/http/service-double';

/** Waits until `check` holds (vi.waitFor, polling every 10 ms for up to 10 s). */
const until = (check: () => boolean) =>
  vi.waitFor(() => expect(check()).toBe(true), { timeout: 10_000, interval: 10 });

describe('event feed across a host restart', () => {
  it('reports the loss once while retries fail, reconnects on its own and delivers events again', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ff-feed-'));
    writeFileSync(path.join(dir, 'index.html'), '<!doctype html>');
    const service = new ServiceDouble();
    const first = await startHttpHost({ service, rendererDir: dir, port: 0 });
    let numAttempts = 0;
    const countingFetch: typeof fetch = (input, init) => (numAttempts++, fetch(input, init));
    const bridge = createHttpBridge({ baseUrl: `http://127.0.0.1:${first.port}`, fetch: countingFetch });
    const states: ConnectionState[] = [];
    const events: PushedEvent[] = [];
    bridge.onConnection((state) => states.push(state));
    const unsubscribe = bridge.subscribe((batch) => events.push(...batch));
    await until(() => service.listeners.size === 1);
    await first.close();
    await until(() => states.includes('lost'));
    const attemptsAtLoss = numAttempts;
    await until(() => numAttempts >= attemptsAtLoss + 2);
    // Retries that fail at once keep the feed 'lost' (no flicker of the banner or of Send).
    expect(states.slice(states.indexOf('lost'))).toEqual(['lost']);
    const second = await startHttpHost({ service, rendererDir: dir, port: first.port });
    await until(() => service.listeners.size === 1);
    service.push({ name: 'request.chunk', payload: { requestId: 'r', text: 'back', numTokens: 1 } });
    await until(() => events.length === 1);
    expect(states.slice(states.indexOf('lost'))).toEqual(['lost', 'open']);
    unsubscribe();
    await second.close();
  });
});

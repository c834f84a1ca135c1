import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RemoteEndpoints } from '../../../src-main/runtime/remote/endpoints';
import type { RemoteEngine } from '../../../src-main/runtime/remote/remote-engine';
import type { PushedEvent } from '../../../src-main/service/contract/events';
import { ENDPOINT_RECHECK_MS, watchEndpoints } from '../../../src-main/service/endpoint-watch';
import { EventHub } from '../../../src-main/service/event-hub';
import type { ScriptedServer } from '../runtime/remote/scripted-server';
import { modelsScript, startScripted } from '../runtime/remote/scripted-server';

let server: ScriptedServer | null = null;
afterEach(async () => {
  vi.useRealTimers();
  await server?.close();
  server = null;
});

/** The reachability each `endpoints.checked` event reported, in order. */
function reachabilities(events: PushedEvent[]): string[] {
  return events
    .flatMap((e) => (e.name === 'endpoints.checked' ? e.payload.endpoints : []))
    .map((e) => e.reachability);
}

describe('watching remote endpoints', () => {
  it('checks every endpoint at start and every minute, so a card follows its server down and back up', async () => {
    let isUp = true;
    const models = modelsScript(['served-model'], 'vllm');
    server = await startScripted({
      '/v1/models': (req, res, body) => {
        if (isUp) return models(req, res, body);
        res.writeHead(503, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'loading' } }));
      },
    });
    const dir = mkdtempSync(path.join(tmpdir(), 'ff-endpoint-watch-'));
    await new RemoteEndpoints(dir).add({ name: 'GPU box', baseUrl: server.origin });
    // A restart while the server is down: the card must say so without anyone pressing Check.
    isUp = false;
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const hub = new EventHub();
    const events: PushedEvent[] = [];
    hub.subscribe((event) => events.push(event));
    const remote = { endpoints: new RemoteEndpoints(dir) } as unknown as RemoteEngine;
    const stop = watchEndpoints({ remote, hub });
    await vi.waitFor(() => expect(reachabilities(events)).toEqual(['unreachable']));
    isUp = true;
    vi.advanceTimersByTime(ENDPOINT_RECHECK_MS);
    await vi.waitFor(() => expect(reachabilities(events)).toEqual(['unreachable', 'reachable']));
    stop();
    vi.advanceTimersByTime(ENDPOINT_RECHECK_MS * 3);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(reachabilities(events)).toEqual(['unreachable', 'reachable']);
  });

  it('says nothing when there are no endpoints to check', async () => {
    const hub = new EventHub();
    const events: PushedEvent[] = [];
    hub.subscribe((event) => events.push(event));
    const endpoints = new RemoteEndpoints(mkdtempSync(path.join(tmpdir(), 'ff-endpoint-watch-')));
    const stop = watchEndpoints({ remote: { endpoints } as unknown as RemoteEngine, hub });
    await new Promise((resolve) => setTimeout(resolve, 50));
    stop();
    expect(events).toEqual([]);
  });
});

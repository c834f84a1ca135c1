import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHttpHost } from '../../../../src-main/host/http/http-host';
import type { HttpHost } from '../../../../src-main/host/http/http-host';
import type { PushedEvent } from '../../../../src-main/service/contract/events';
import { ServiceDouble } from './service-double';

const MAX_UNSENT_BYTES = 256 * 1024;

/** Opens `/api/events` over a raw socket, waits for the response head, then stops reading. */
function neverReadingClient(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('data', () => {
      socket.pause();
      resolve(socket);
    });
    socket.once('error', reject);
    socket.write(`GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
  });
}

const chunk = (index: number, text: string): PushedEvent => ({
  name: 'request.chunk',
  payload: { requestId: `r-${index}`, text, numTokens: 1 },
});

describe('/api/events: a client that never reads', () => {
  let host: HttpHost;
  let dir: string;
  const service = new ServiceDouble();
  const warnings: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ff-events-'));
    writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>t</title>');
    host = await startHttpHost({
      service,
      rendererDir: dir,
      port: 0,
      events: {
        flushIntervalMs: 1,
        keepAliveMs: 60_000,
        maxBufferedEvents: 50_000,
        maxUnsentBytes: MAX_UNSENT_BYTES,
      },
      log: { warn: (topic, message) => void warnings.push(`[${topic}] ${message}`) },
    });
  });
  afterAll(async () => {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is cut off with the reason once it falls behind, and what it held is let go', async () => {
    const socket = await neverReadingClient(host.port);
    expect(service.listeners.size).toBe(1);
    const text = 'x'.repeat(64 * 1024);
    // 32 MB offered: far beyond the kernel's socket buffers, so the host's own buffer must grow.
    for (let i = 0; i < 512 && service.listeners.size > 0; i++) {
      service.push(chunk(i, text));
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await vi.waitFor(() => expect(service.listeners.size).toBe(0), { timeout: 10_000 });
    expect(warnings).toEqual([
      expect.stringMatching(
        /^\[events\] an \/api\/events client was cut off: it fell [\d.]+ MB behind \(it is not reading\); it gets a fresh stream if it reconnects$/,
      ),
    ]);
    const behindMb = Number(/fell ([\d.]+) MB/.exec(warnings[0]!)![1]);
    expect(behindMb * 1024 * 1024).toBeLessThan(MAX_UNSENT_BYTES + 2 * text.length + 4096);
    // The host closed the connection: the client sees the end once it reads again.
    socket.resume();
    await new Promise((resolve) => socket.once('close', resolve));
  });

  it('cuts off only the client that fell behind: one reading beside it gets every event', async () => {
    const before = warnings.length;
    const response = await fetch(`${host.url}api/events`);
    const body = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    const seen = new Set<string>();
    const reading = (async () => {
      let tail = '';
      for (;;) {
        const { done, value } = await body.read();
        if (done) return;
        // An id cut between two reads is found in the next one: keep the last few characters.
        const text = tail + value;
        for (const match of text.matchAll(/"requestId":"(r-\d+)"/g)) seen.add(match[1]!);
        tail = text.slice(-32);
      }
    })();
    await vi.waitFor(() => expect(service.listeners.size).toBe(1));
    const socket = await neverReadingClient(host.port);
    expect(service.listeners.size).toBe(2);
    const text = 'z'.repeat(64 * 1024);
    let numPushed = 0;
    for (; numPushed < 512 && service.listeners.size > 1; numPushed++) {
      service.push(chunk(numPushed, text));
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await vi.waitFor(() => expect(service.listeners.size).toBe(1), { timeout: 10_000 });
    await vi.waitFor(() => expect(seen.size).toBe(numPushed), { timeout: 10_000 });
    expect(warnings.slice(before)).toEqual([expect.stringMatching(/an \/api\/events client was cut off/)]);
    socket.destroy();
    await body.cancel();
    await reading;
    await vi.waitFor(() => expect(service.listeners.size).toBe(0));
  });

  it('keeps a client that reads, however much goes through', async () => {
    const before = warnings.length;
    const response = await fetch(`${host.url}api/events`);
    const body = response.body!.getReader();
    let numBytes = 0;
    const reading = (async () => {
      for (;;) {
        const { done, value } = await body.read();
        if (done) return;
        numBytes += value.length;
      }
    })();
    await vi.waitFor(() => expect(service.listeners.size).toBe(1));
    const text = 'y'.repeat(64 * 1024);
    for (let i = 0; i < 256; i++) {
      service.push(chunk(i, text));
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await vi.waitFor(() => expect(numBytes).toBeGreaterThan(256 * text.length), { timeout: 10_000 });
    expect(service.listeners.size).toBe(1);
    expect(warnings.length).toBe(before);
    await body.cancel();
    await reading;
    await vi.waitFor(() => expect(service.listeners.size).toBe(0));
  });
});

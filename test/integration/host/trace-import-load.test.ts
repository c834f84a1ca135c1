import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHttpHost } from '../../../src-main/host/http/http-host';
import type { HttpHost } from '../../../src-main/host/http/http-host';
import { createCore } from '../../../src-main/service/create-core';
import type { Core } from '../../../src-main/service/core-options';
import { positiveControlRecords } from '../../../src-main/telemetry/trace/controls';
import { TEST_MODELS_DIR } from '../../support/runtime';
import { rawExchange, statusOfRaw } from '../../support/raw-socket';

/** About `megabytes` MB of valid seed 003 records, one per line. */
function traceOf(megabytes: number): { text: string; numLines: number } {
  const base = positiveControlRecords()[0]!;
  const lines: string[] = [];
  let numChars = 0;
  for (let i = 0; numChars < megabytes * 1e6; i++) {
    const line = JSON.stringify({ ...base, request_id: `bulk-${i}-padding-padding` });
    lines.push(line);
    numChars += line.length + 1;
  }
  return { text: lines.join('\n'), numLines: lines.length };
}

/** Times one request to the host, start to last byte (ms). */
async function timed(url: string, init?: RequestInit): Promise<number> {
  const startAt = performance.now();
  const response = await fetch(url, init);
  await response.arrayBuffer();
  expect(response.status).toBe(200);
  return performance.now() - startAt;
}

describe('a 50 MB trace import through the streamed upload route', () => {
  let dataDir: string;
  let rendererDir: string;
  let core: Core;
  let host: HttpHost;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'ff-import-load-'));
    rendererDir = mkdtempSync(path.join(os.tmpdir(), 'ff-import-page-'));
    writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>t</title>');
    core = await createCore({ dataDir, bundledModelsDir: TEST_MODELS_DIR, host: 'headless' });
    host = await startHttpHost({
      service: core.service,
      importTrace: (upload) => core.importTrace(upload),
      rendererDir,
      port: 0,
    });
  });
  afterAll(async () => {
    await host.close();
    await core.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(rendererDir, { recursive: true, force: true });
  });

  it('imports every line while page loads and calls keep answering within a second', async () => {
    const { text, numLines } = traceOf(50);
    const upload = fetch(`${host.url}api/traces/import?fileName=bulk.jsonl&skipBadLines=false`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-ndjson' },
      body: text,
    }).then((r) => r.json() as Promise<{ ok: boolean; value: { numImported: number; runId: string } }>);
    let isDone = false;
    void upload.finally(() => (isDone = true));
    const latenciesMs: number[] = [];
    const status = { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' };
    while (!isDone) {
      latenciesMs.push(await timed(host.url));
      latenciesMs.push(await timed(`${host.url}api/call/app.status`, status));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const result = await upload;
    const worstMs = Math.max(...latenciesMs);
    console.log(
      `50 MB import (${numLines} lines): ${latenciesMs.length} page/status requests meanwhile, worst ${worstMs.toFixed(1)} ms`,
    );
    expect(result).toMatchObject({ ok: true, value: { numImported: numLines } });
    expect(latenciesMs.length).toBeGreaterThan(10);
    expect(worstMs).toBeLessThan(1_000);
    await vi.waitFor(
      async () => {
        const runs = await core.service.call('runs.list', {});
        const run = runs.ok ? runs.value.find((r) => r.runId === result.value.runId) : undefined;
        expect(run?.numRequests).toBe(numLines);
      },
      { timeout: 60_000, interval: 500 },
    );
  });

  it('answers traces.import of a record claiming 120,000,000 output tokens with a per-line rejection', async () => {
    const base = positiveControlRecords()[0]!;
    const text = [
      JSON.stringify(base),
      JSON.stringify({ ...base, request_id: 'huge', output_tokens: 120_000_000 }),
    ].join('\n');
    const strict = await core.service.call('traces.import', {
      fileName: 'huge.jsonl',
      text,
      skipBadLines: false,
    });
    expect(strict).toMatchObject({
      ok: true,
      value: {
        numImported: 0,
        numRejected: 1,
        rejected: [{ line: 2, reason: expect.stringMatching(/output_tokens: must be at most 1,000,000/) }],
      },
    });
    const lenient = await core.service.call('traces.import', {
      fileName: 'huge.jsonl',
      text,
      skipBadLines: true,
    });
    expect(lenient).toMatchObject({ ok: true, value: { numImported: 1, numRejected: 1 } });
    expect((await fetch(host.url)).status).toBe(200);
  });

  it('refuses an upload over the size cap with 413 before reading it', async () => {
    const head = [
      'POST /api/traces/import?fileName=big.jsonl HTTP/1.1',
      `Host: 127.0.0.1:${host.port}`,
      `Content-Length: ${129 * 1024 * 1024}`,
      '',
      '',
    ].join('\r\n');
    const response = await rawExchange(host.port, head);
    expect(statusOfRaw(response)).toBe(413);
    expect(response).toMatch(/a trace upload is at most 134,217,728 bytes/);
  });
});

describe('trace imports share one budget', () => {
  let dataDir: string;
  let rendererDir: string;
  let core: Core;
  let host: HttpHost;
  const { text, numLines } = traceOf(1);
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'ff-import-budget-'));
    rendererDir = mkdtempSync(path.join(os.tmpdir(), 'ff-import-budget-page-'));
    writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>t</title>');
    // Room for one of these files at a time, and none may wait.
    core = await createCore({
      dataDir,
      bundledModelsDir: TEST_MODELS_DIR,
      host: 'headless',
      importBudget: { maxBytesInFlight: text.length, maxWaiting: 0 },
    });
    host = await startHttpHost({
      service: core.service,
      importTrace: (upload) => core.importTrace(upload),
      rendererDir,
      port: 0,
    });
  });
  afterAll(async () => {
    await host.close();
    await core.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(rendererDir, { recursive: true, force: true });
  });

  const upload = (name: string) =>
    fetch(`${host.url}api/traces/import?fileName=${name}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-ndjson' },
      body: text,
    });

  it('refuses an import while another holds the budget (429, the reason, nothing stored), then takes the next', async () => {
    // The first upload sends half its body and holds it: its import runs (and holds the budget).
    const socket = connect(host.port, '127.0.0.1');
    const answered = new Promise<string>((resolve) => {
      let reply = '';
      socket.on('data', (chunk: Buffer) => (reply += chunk.toString('utf8')));
      socket.on('end', () => resolve(reply));
    });
    const body = Buffer.from(text, 'utf8');
    socket.write(
      `POST /api/traces/import?fileName=held.jsonl HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\n` +
        `Content-Type: application/x-ndjson\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    );
    socket.write(body.subarray(0, body.length >> 1));
    await vi.waitFor(() => expect(core.imports.stats.numRunning).toBe(1));
    const refused = await upload('refused.jsonl');
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({
      ok: false,
      error: {
        code: 'queue_full',
        message: expect.stringMatching(/^1 trace imports are running or waiting/),
      },
    });
    const call = await core.service.call('traces.import', {
      fileName: 'call.jsonl',
      text,
      skipBadLines: false,
    });
    expect(call).toMatchObject({ ok: false, error: { code: 'queue_full' } });
    socket.write(body.subarray(body.length >> 1));
    expect(await answered).toMatch(new RegExp(`^HTTP/1.1 200[^]*"numImported":${numLines}`));
    expect(core.imports.stats).toEqual({ numRunning: 0, numWaiting: 0, numBytesRunning: 0 });
    const next = await upload('next.jsonl');
    expect(await next.json()).toMatchObject({ ok: true, value: { numImported: numLines } });
    const runs = await core.service.call('runs.list', {});
    const names = runs.ok ? runs.value.map((r) => r.name).sort() : [];
    expect(names).toEqual([
      expect.stringMatching(/^Imported held\.jsonl · /),
      expect.stringMatching(/^Imported next\.jsonl · /),
    ]);
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpHost } from '../../../src-main/host/http/http-host';
import type { HttpHost } from '../../../src-main/host/http/http-host';
import { openAiRoutes } from '../../../src-main/host/openai/handle-openai';
import { HTTP_LIMITS } from '../../../src-main/limits';
import { createCore } from '../../../src-main/service/create-core';
import type { Core } from '../../../src-main/service/core-options';
import { TEST_MODEL_ID, TEST_MODELS_DIR } from '../../support/runtime';

const SENTENCE = 'It is a truth universally acknowledged, that a single man must be in want of a wife. ';
const textOf = (numChars: number) =>
  SENTENCE.repeat(Math.ceil(numChars / SENTENCE.length)).slice(0, numChars);

/**
 * The target is one second; the test allows twice that, because this 2-core machine is shared
 * and the figure is printed anyway (measured here: docs/benchmarks.md, "Hostile inputs").
 */
const BOUND_MS = 2_000;

describe('one heavy request never makes the host unresponsive', () => {
  let dataDir: string;
  let rendererDir: string;
  let core: Core;
  let host: HttpHost;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'ff-responsive-'));
    rendererDir = mkdtempSync(path.join(os.tmpdir(), 'ff-responsive-page-'));
    writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>t</title>');
    core = await createCore({ dataDir, bundledModelsDir: TEST_MODELS_DIR, host: 'headless' });
    await core.prefetchDefault();
    host = await startHttpHost({
      service: core.service,
      rendererDir,
      port: 0,
      routes: [openAiRoutes({ openai: core.openai })],
    });
  });
  afterAll(async () => {
    await host.close();
    await core.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(rendererDir, { recursive: true, force: true });
  });

  const post = (route: string, body: unknown) =>
    fetch(`${host.url}${route}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });

  /** Times a page load and a short chat answer, again and again, until `heavy` settles. */
  async function probeWhile(
    heavy: Promise<Response>,
  ): Promise<{ pageMs: number[]; chatMs: number[]; status: number }> {
    let settled = false;
    const done = heavy.finally(() => (settled = true));
    const pageMs: number[] = [];
    const chatMs: number[] = [];
    do {
      let startAt = performance.now();
      expect((await fetch(host.url).then((r) => (void r.arrayBuffer(), r))).status).toBe(200);
      pageMs.push(performance.now() - startAt);
      startAt = performance.now();
      const short = await post('v1/chat/completions', {
        model: TEST_MODEL_ID,
        messages: [{ role: 'user', content: 'Hi' }],
        max_tokens: 1,
        temperature: 0,
      });
      expect(short.status).toBe(200);
      await short.json();
      chatMs.push(performance.now() - startAt);
    } while (!settled);
    const response = await done;
    await response.arrayBuffer();
    return { pageMs, chatMs, status: response.status };
  }

  const prompts: [string, () => Promise<Response>, number][] = [
    [
      'a prompt of almost 1 MiB (refused by characters, unread)',
      () =>
        post('v1/completions', {
          model: TEST_MODEL_ID,
          prompt: textOf(HTTP_LIMITS.maxBodyBytes - 1024),
          max_tokens: 4,
        }),
      400,
    ],
    [
      'a 131,072-character prompt (tokenized off the serving thread, then over the token limit)',
      () => post('v1/completions', { model: TEST_MODEL_ID, prompt: textOf(131_072), max_tokens: 4 }),
      400,
    ],
    [
      'a prompt near the model context (7,000 characters, chunked prefill in the slot worker)',
      () =>
        post('v1/completions', {
          model: TEST_MODEL_ID,
          prompt: textOf(7_000),
          max_tokens: 8,
          temperature: 0,
        }),
      200,
    ],
    [
      'a 200,000-character chat message (refused by characters, unread)',
      async () => {
        const created = await core.service.call('chat.createConversation', {});
        if (!created.ok) throw new Error(created.error.message);
        return post('api/call/chat.send', {
          conversationId: created.value.conversationId,
          content: textOf(200_000),
        });
      },
      400,
    ],
  ];

  it.each(prompts)('while %s, pages and short chats keep answering', async (label, send, status) => {
    const result = await probeWhile(send());
    const worstPageMs = Math.max(...result.pageMs);
    const worstChatMs = Math.max(...result.chatMs);
    console.log(
      `${label}: ${result.pageMs.length} probes; worst page load ${worstPageMs.toFixed(1)} ms, worst short chat ${worstChatMs.toFixed(1)} ms`,
    );
    expect(result.status).toBe(status);
    expect(worstPageMs).toBeLessThan(BOUND_MS);
    expect(worstChatMs).toBeLessThan(BOUND_MS);
  });
});

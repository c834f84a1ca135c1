import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PushedEvent } from '../../../src-main/service/contract/events';
import type { MethodInput, MethodName, MethodOutput } from '../../../src-main/service/contract/methods';
import type { Core } from '../../../src-main/service/core-options';
import { finishedTimelineOf } from '../../support/chat-turn';
import { createTestCore } from '../../support/core';
import { TEST_MODEL_ID, TEST_MODEL_REF } from '../../support/runtime';
import type { ApiFixture } from '../openai/api-server';
import { startApiFixture } from '../openai/api-server';

const KEY = 'sk-remote-chat-0001';

describe('chatting with a remote engine through the app (a second First Frame host)', () => {
  let second: ApiFixture;
  let core: Core;
  let dataDir: string;
  const call = async <M extends MethodName>(method: M, input: MethodInput<M>): Promise<MethodOutput<M>> => {
    const result = await core.service.call(method, input);
    if (!result.ok) throw new Error(`${method}: ${result.error.code} ${result.error.message}`);
    return result.value;
  };
  /** Sends a chat turn and waits for its request.done. */
  const send = async (input: MethodInput<'chat.send'>) => {
    const events: PushedEvent[] = [];
    const off = core.service.subscribe((e) => events.push(e));
    const started = await call('chat.send', input);
    await expect
      .poll(
        () => events.some((e) => e.name === 'request.done' && e.payload.requestId === started.requestId),
        {
          timeout: 30_000,
        },
      )
      .toBe(true);
    off();
    const done = events.find((e) => e.name === 'request.done' && e.payload.requestId === started.requestId)!;
    const chunks = events.filter(
      (e) => e.name === 'request.chunk' && e.payload.requestId === started.requestId,
    );
    const timeline = finishedTimelineOf(events, started.requestId);
    return { started, done: done as Extract<PushedEvent, { name: 'request.done' }>, chunks, timeline };
  };

  beforeAll(async () => {
    second = await startApiFixture({ apiKey: KEY });
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'ff-remote-chat-'));
    core = await createTestCore(dataDir);
  });
  afterAll(async () => {
    await core.close();
    await second.close();
  });

  it('refuses a URL that is not http(s) before anything is fetched', async () => {
    const result = await core.service.call('endpoints.add', {
      name: 'Files',
      baseUrl: 'file:///etc/passwd',
      engine: 'auto',
    });
    expect(result).toEqual({
      ok: false,
      error: { code: 'invalid_input', message: expect.stringMatching(/only http:\/\/ and https:\/\//) },
    });
    expect(await call('endpoints.list', {})).toEqual([]);
  });

  it('adds the second host: its models become remote slots; the key is never echoed', async () => {
    const added = await call('endpoints.add', {
      name: 'Second host',
      baseUrl: second.server.baseUrl,
      apiKey: KEY,
      engine: 'auto',
    });
    expect(added).toMatchObject({ endpointId: 'second-host', reachability: 'reachable', hasKey: true });
    expect(added.models.map((m) => m.modelId)).toContain(`@second-host/${TEST_MODEL_REF}`);
    expect(JSON.stringify(await call('endpoints.list', {}))).not.toContain(KEY);
    expect(readFileSync(path.join(dataDir, 'endpoints.json'), 'utf8')).not.toContain(KEY);
  });

  it('a chat turn streams from the remote engine and keeps its timeline with the answer', async () => {
    const { conversationId } = await call('chat.createConversation', {});
    const modelId = `@second-host/${TEST_MODEL_ID}`;
    const forecast = await call('chat.forecast', {
      conversationId,
      content: 'Good morning!',
    });
    expect(forecast.remote).toBeNull(); // the conversation's model is still the local default
    const { started, done, timeline, chunks } = await send({
      conversationId,
      content: 'Good morning!',
      modelId,
      sampling: { temperature: 0, maxTokens: 5 },
    });
    expect(started.forecast.remote?.note).toMatch(/the server tokenizes/);
    expect(chunks.length).toBeGreaterThan(0);
    const t = timeline;
    expect(t.modelId).toBe(modelId);
    expect(t.remote).toMatchObject({ endpointName: 'Second host', reportSource: 'first-frame-timings' });
    expect(t.numOutputTokens).toBe(5);
    expect(done.payload.messageId).not.toBeNull();
    const view = await call('chat.getConversation', { conversationId });
    const answer = view.messages.at(-1)!;
    expect(answer.role).toBe('assistant');
    expect(answer.content.length).toBeGreaterThan(0);
    // The live window has it too (the dashboard and the Runs view read from there and the store).
    const recent = await call('timelines.recent', { limit: 10 });
    expect(recent.some((r) => r.requestId === started.requestId && r.remote !== null)).toBe(true);
  });

  it('an unknown remote model fails that answer with the server’s 404; a local chat still works', async () => {
    const { conversationId } = await call('chat.createConversation', {});
    const failed = await send({ conversationId, content: 'Hi', modelId: '@second-host/no-such-model' });
    expect(failed.timeline.finishReason).toBe('error');
    expect(failed.timeline.errorMessage).toMatch(/HTTP 404/);
    const [endpoint] = await call('endpoints.list', {});
    expect(endpoint!.lastError).toMatch(/HTTP 404/);
    // The failed answer is kept with its error, so the question never stands alone after a reload.
    expect((await call('chat.getConversation', { conversationId })).messages[1]).toMatchObject({
      role: 'assistant',
      messageId: failed.done.payload.messageId,
      finishReason: 'error',
      errorMessage: expect.stringMatching(/HTTP 404/),
    });
    const local = await send({ conversationId, content: 'Hi', sampling: { temperature: 0, maxTokens: 3 } });
    expect(local.timeline.finishReason).toBe('length');
    expect(local.timeline.remote).toBeNull();
  });

  it('a chat to an endpoint that does not exist is refused before anything is stored', async () => {
    const { conversationId } = await call('chat.createConversation', {});
    const result = await core.service.call('chat.send', {
      conversationId,
      content: 'Hi',
      modelId: '@nowhere/m',
    });
    expect(result).toEqual({
      ok: false,
      error: { code: 'not_found', message: expect.stringMatching(/no endpoint "nowhere"/) },
    });
    expect((await call('chat.getConversation', { conversationId })).messages).toEqual([]);
  });
});

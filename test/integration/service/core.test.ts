import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../../src-main/service/core-options';
import { finishedTimelineOf, sendTurn as sendAndWait } from '../../support/chat-turn';
import { createTestCore } from '../../support/core';
import { TEST_MODEL_ID, TEST_MODEL_REF } from '../../support/runtime';

describe('the core behind every transport', () => {
  let dataDir: string;
  let core: Core;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'ff-core-'));
    core = await createTestCore(dataDir);
  });
  afterAll(async () => {
    await core.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers a chat turn with streamed chunks, a checked timeline and a stored message', async () => {
    const created = await core.service.call('chat.createConversation', {});
    if (!created.ok) throw new Error(created.error.message);
    const { conversationId } = created.value;
    const { requestId, events } = await sendAndWait(core, conversationId, 'Good morning!');
    expect(events.filter((e) => e.name === 'request.chunk').length).toBeGreaterThan(0);
    const done = events.find((e) => e.name === 'request.done');
    expect(done?.payload).toMatchObject({ requestId, finishReason: 'length' });
    // The timeline is pushed once, beside request.done.
    expect(finishedTimelineOf(events, requestId)).toMatchObject({
      finishReason: 'length',
      numOutputTokens: 8,
    });
    const conversation = await core.service.call('chat.getConversation', { conversationId });
    if (!conversation.ok) throw new Error(conversation.error.message);
    expect(conversation.value.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(conversation.value.messages[1]!.timeline?.requestId).toBe(requestId);
    expect(conversation.value.conversation.title).toBe('Good morning!');
  });

  it('records a client TTFT at or above the server TTFT and refuses one below it as a broken measurement', async () => {
    const created = await core.service.call('chat.createConversation', {});
    if (!created.ok) throw new Error(created.error.message);
    const { requestId, events } = await sendAndWait(core, created.value.conversationId, 'Hello there');
    const serverTtftMs = finishedTimelineOf(events, requestId).ttftMs!;
    const tooFast = await core.service.call('timelines.reportClientTtft', {
      requestId,
      clientTtftMs: serverTtftMs / 2,
    });
    expect(tooFast).toEqual({
      ok: true,
      value: { isRecorded: false, reason: expect.stringContaining('broken client measurement') },
    });
    const stored = await core.service.call('timelines.recent', { limit: 50 });
    const kept = stored.ok ? stored.value.find((t) => t.requestId === requestId) : undefined;
    expect(kept?.clientTtftMs).toBeNull();
    const sound = await core.service.call('timelines.reportClientTtft', {
      requestId,
      clientTtftMs: serverTtftMs + 3,
    });
    expect(sound).toEqual({ ok: true, value: { isRecorded: true } });
  });

  it('returns invalid input as a value naming the field, never a throw', async () => {
    const bad = await core.service.call('chat.send', {
      conversationId: 'x',
      content: '',
      sampling: { temperature: 'hot' },
    });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.error.code).toBe('invalid_input');
      expect(bad.error.message).toMatch(/content|temperature/);
    }
    const unknown = await core.service.call('no.such' as 'app.status', {});
    expect(unknown).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('lists the model, its resident slot with the threads its session was built with, and a live report', async () => {
    const models = await core.service.call('models.list', {});
    if (!models.ok) throw new Error(models.error.message);
    const fp16 = models.value.find((m) => m.name === TEST_MODEL_ID && m.isDefaultVariant);
    // model.onnx is the fp32 variant by file name; its weights are stored fp16, and its id says so.
    expect(fp16).toMatchObject({
      modelId: TEST_MODEL_REF,
      variant: 'fp32',
      displayName: `${TEST_MODEL_ID} · fp16`,
      error: null,
    });
    expect(fp16?.weightDtype).toBe('fp16');
    expect(models.value.find((m) => m.modelId === `${TEST_MODEL_ID}:q4`)?.weightDtype).toBe('int4');
    const slots = await core.service.call('slots.list', {});
    expect(slots.ok && slots.value[0]?.status).toBe('resident');
    // The test core builds sessions with one thread (test/support/core.ts): the card says so.
    expect(slots.ok && slots.value[0]?.numThreads).toBe(1);
    expect(slots.ok && typeof slots.value[0]?.canSpinThreads).toBe('boolean');
    const report = await core.service.call('report.live', { slo: { ttftMs: 1000, itlMs: 200 } });
    if (!report.ok) throw new Error(report.error.message);
    expect(report.value.numRequests).toBeGreaterThan(0);
    expect(report.value.ttft.p95Ms).toBeGreaterThan(0);
    expect(report.value.goodput?.slo.ttftMs).toBe(1000);
  });

  it('imports a trace, reporting every bad line with its number, and imports nothing unless asked to skip', async () => {
    const good = {
      request_id: 'a',
      prompt_tokens: 10,
      output_tokens: 5,
      client_send_ms: 0,
      gateway_arrival_ms: 5,
      queue_enter_ms: 6,
      prefill_start_ms: 10,
      prefill_end_ms: 30,
      first_token_server_ms: 32,
      first_token_client_ms: 40,
      last_token_client_ms: 90,
    };
    const text = [
      JSON.stringify(good),
      '{not json',
      JSON.stringify({ ...good, request_id: 'b', prefill_end_ms: 5 }),
    ].join('\n');
    const strict = await core.service.call('traces.import', {
      fileName: 't.jsonl',
      text,
      skipBadLines: false,
    });
    if (!strict.ok) throw new Error(strict.error.message);
    expect(strict.value.numImported).toBe(0);
    expect(strict.value.rejected.map((r) => r.line)).toEqual([2, 3]);
    const lenient = await core.service.call('traces.import', {
      fileName: 't.jsonl',
      text,
      skipBadLines: true,
    });
    expect(lenient.ok && lenient.value.numImported).toBe(1);
  });
});

describe('persistence off', () => {
  it('keeps serving chat in memory and says why history is off when the database file is corrupt', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ff-corrupt-'));
    writeFileSync(path.join(dataDir, 'history.sqlite'), Buffer.alloc(8192, 0x5a));
    const core = await createTestCore(dataDir);
    try {
      const status = await core.service.call('app.status', {});
      if (!status.ok) throw new Error(status.error.message);
      expect(status.value.isPersistent).toBe(false);
      expect(status.value.persistenceReason).toMatch(/corrupt|not a database/i);
      expect(core.describe().at(-1)).toMatch(/^history: OFF/);
      const created = await core.service.call('chat.createConversation', { title: 'in memory' });
      if (!created.ok) throw new Error(created.error.message);
      const { events, requestId } = await sendAndWait(core, created.value.conversationId, 'Hello?');
      expect(events.find((e) => e.name === 'request.done')?.payload).toMatchObject({
        finishReason: 'length',
      });
      expect(finishedTimelineOf(events, requestId).finishReason).toBe('length');
      const conversation = await core.service.call('chat.getConversation', {
        conversationId: created.value.conversationId,
      });
      expect(conversation.ok && conversation.value.messages.length).toBe(2);
    } finally {
      await core.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

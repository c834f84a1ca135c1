import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PushedEvent } from '../../../src-main/service/contract/events';
import type { Core } from '../../../src-main/service/core-options';
import { createTestCore } from '../../support/core';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ff-settings-'));
const open = () => createTestCore(dataDir);

async function call<T>(promise: Promise<{ ok: true; value: T } | { ok: false; error: { message: string } }>) {
  const result = await promise;
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

describe('runtime settings through the service', () => {
  let core: Core;
  beforeAll(async () => {
    core = await open();
    await core.prefetchDefault();
  });
  afterAll(async () => {
    await core.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers at once while the provider check runs, then pushes what it found to every client', async () => {
    const events: PushedEvent[] = [];
    const off = core.service.subscribe((e) => void events.push(e));
    const first = await call(core.service.call('settings.get', {}));
    if (!first.areProvidersChecked)
      expect(first.providers.map((p) => p.reason)).toEqual([null, 'being checked', 'being checked']);
    await vi.waitFor(() => expect(events.some((e) => e.name === 'providers.checked')).toBe(true), {
      timeout: 60_000,
    });
    off();
    const pushed = events.find((e) => e.name === 'providers.checked');
    const later = await call(core.service.call('settings.get', {}));
    expect(later.areProvidersChecked).toBe(true);
    expect(pushed?.payload).toEqual({ providers: later.providers });
  });

  it('applies seats from the next step without unloading anything', async () => {
    const applied = await call(core.service.call('settings.apply', { patch: { maxSeats: 2 } }));
    expect(applied).toMatchObject({ changed: ['maxSeats'], level: 'engine', evictedSlotIds: [] });
    expect(applied.description).toBe('answers at once per model 4 → 2');
    const stats = await call(core.service.call('engine.stats', {}));
    expect(stats.numSeats).toBe(2);
  });

  it('rebuilds the slots for a page size change, naming the slots it unloaded, and serves on the new layout', async () => {
    const before = await call(core.service.call('settings.get', {}));
    expect(before.slots.find((s) => s.status === 'resident')?.lastLoadMs).toBeGreaterThan(0);
    const applied = await call(core.service.call('settings.apply', { patch: { pageSize: 32 } }));
    expect(applied).toMatchObject({ level: 'slots', settings: { pageSize: 32 } });
    expect(applied.evictedSlotIds).toHaveLength(1);
    const slots = await call(core.service.call('slots.list', {}));
    expect(slots[0]?.status).toBe('empty');
    const pages = await call(core.service.call('pages.stats', {}));
    expect(pages.pageSize).toBe(32);
  });

  it('keeps context pages on disk and forgets them by model or all, refusing bad input', async () => {
    const pages = await call(core.service.call('pages.stats', {}));
    expect(pages.disk.state).toBe('on');
    expect(await call(core.service.call('pages.forget', {}))).toEqual({ numPages: pages.disk.numPages });
    expect(await core.service.call('pages.forget', { modelId: 'no-such-model' })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    expect(await core.service.call('pages.forget', { modelId: '' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input' },
    });
    expect((await call(core.service.call('pages.stats', {}))).disk.numPages).toBe(0);
  });

  it('refuses a bad value or combination with the field named, and changes nothing', async () => {
    const before = await call(core.service.call('settings.get', {}));
    const tooMany = await core.service.call('settings.apply', {
      patch: { defaultMaxTokens: 5000, maxOutputTokens: 4000 },
    });
    expect(tooMany).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    if (!tooMany.ok)
      expect(tooMany.error.message).toMatch(
        /^default answer length \(5000\) must not exceed the longest answer/,
      );
    const zeroSeats = await core.service.call('settings.apply', { patch: { maxSeats: 0 } });
    expect(zeroSeats).toEqual({
      ok: false,
      error: {
        code: 'invalid_input',
        message: 'Answers at once per model takes a whole number from 1 to 64 requests.',
      },
    });
    const provider = await core.service.call('settings.apply', {
      patch: { executionProvider: 'tpu' } as never,
    });
    expect(provider).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    const unknown = await core.service.call('settings.apply', { patch: { seats: 3 } as never });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect((await call(core.service.call('settings.get', {}))).settings).toEqual(before.settings);
  });

  it('refuses a slot rebuild while a request runs, and the request finishes untouched', async () => {
    const conversation = await call(core.service.call('chat.createConversation', {}));
    const events: PushedEvent[] = [];
    const off = core.service.subscribe((e) => void events.push(e));
    const sent = await call(
      core.service.call('chat.send', {
        conversationId: conversation.conversationId,
        content: 'Tell me a long story.',
        sampling: { temperature: 0, maxTokens: 200, ignoreEos: true },
      }),
    );
    const busy = await core.service.call('settings.apply', { patch: { pageSize: 16 } });
    expect(busy).toMatchObject({ ok: false, error: { code: 'unavailable' } });
    if (!busy.ok) expect(busy.error.message).toMatch(/needs an idle engine: 1 request/);
    await vi.waitFor(() => expect(events.some((e) => e.name === 'request.done')).toBe(true), {
      timeout: 60_000,
    });
    off();
    const done = events.find((e) => e.name === 'request.done' && e.payload.requestId === sent.requestId);
    expect(done?.name === 'request.done' && done.payload.finishReason).toBe('length');
  });

  it('cuts a chat answer at its deadline with finish reason deadline', async () => {
    const conversation = await call(core.service.call('chat.createConversation', {}));
    const events: PushedEvent[] = [];
    const off = core.service.subscribe((e) => void events.push(e));
    await call(
      core.service.call('chat.send', {
        conversationId: conversation.conversationId,
        content: 'Keep talking.',
        sampling: { temperature: 0, maxTokens: 4000, ignoreEos: true },
        deadlineMs: 300,
      }),
    );
    await vi.waitFor(() => expect(events.some((e) => e.name === 'request.done')).toBe(true), {
      timeout: 60_000,
    });
    off();
    const done = events.find((e) => e.name === 'request.done');
    expect(done?.name === 'request.done' && done.payload.finishReason).toBe('deadline');
  });

  it('keeps applied settings across a restart', async () => {
    await core.close();
    core = await open();
    const state = await call(core.service.call('settings.get', {}));
    expect(state.settings).toMatchObject({ maxSeats: 2, pageSize: 32 });
    expect(state.isPersistent).toBe(true);
  });
});

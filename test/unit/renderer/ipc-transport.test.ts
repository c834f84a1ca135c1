import { describe, expect, it, vi } from 'vitest';
import type { PushedEvent } from '../../../src-main/service/contract/events';
import type { FirstFrameApi } from '../../../src-main/service/contract/window-api';
import { createIpcBridge } from '../../../src-renderer/bridge/ipc-transport';

function fakePreload(answer: unknown) {
  let listener: ((events: PushedEvent[]) => void) | null = null;
  const api = {
    methods: new Proxy({}, { get: () => async () => answer }),
    onEvents: (l: (events: PushedEvent[]) => void) => {
      listener = l;
      return () => (listener = null);
    },
    platform: 'linux',
  } as unknown as FirstFrameApi;
  return {
    api,
    emit: (events: unknown) => listener?.(events as PushedEvent[]),
    isListening: () => listener !== null,
  };
}

describe('IPC transport over the preload', () => {
  it('validates answers: a good value passes, a bad one becomes an internal error', async () => {
    expect(
      await createIpcBridge(fakePreload({ ok: true, value: { wasRunning: false } }).api).call('chat.cancel', {
        requestId: 'x',
      }),
    ).toEqual({
      ok: true,
      value: { wasRunning: false },
    });
    const bad = await createIpcBridge(fakePreload({ ok: true, value: { wasRunning: 'yes' } }).api).call(
      'chat.cancel',
      { requestId: 'x' },
    );
    expect(bad).toMatchObject({ ok: false, error: { code: 'internal' } });
    const error = await createIpcBridge(
      fakePreload({ ok: false, error: { code: 'not_found', message: 'gone' } }).api,
    ).call('chat.cancel', { requestId: 'x' });
    expect(error).toEqual({ ok: false, error: { code: 'not_found', message: 'gone' } });
  });

  it('drops invalid events, stamps each batch, and unsubscribes with the last listener', () => {
    const preload = fakePreload(null);
    const bridge = createIpcBridge(preload.api);
    const seen = vi.fn();
    const unsubscribe = bridge.subscribe(seen);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    preload.emit([
      { name: 'request.chunk', payload: { requestId: 'r', text: 'hi', numTokens: 1 } },
      { name: 'request.chunk', payload: { requestId: 'r', text: 5 } },
      { name: 'no.such.event', payload: {} },
    ]);
    warn.mockRestore();
    expect(seen).toHaveBeenCalledTimes(1);
    const [events, receivedAt] = seen.mock.calls[0]!;
    expect(events).toHaveLength(1);
    expect(typeof receivedAt).toBe('number');
    unsubscribe();
    expect(preload.isListening()).toBe(false);
  });
});

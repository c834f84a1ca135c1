import { beforeEach, describe, expect, it, vi } from 'vitest';
import { methodsArgument } from '../../../src-main/host/electron/ipc-channels';
import type { PushedEvent } from '../../../src-main/service/contract/events';
import { METHOD_NAMES } from '../../../src-main/service/contract/methods';
import type { FirstFrameApi } from '../../../src-main/service/contract/window-api';

// The preload against fakes of contextBridge and ipcRenderer (Electron cannot run here).
const fake = vi.hoisted(() => {
  const listeners = new Map<string, Set<(event: unknown, ...args: unknown[]) => void>>();
  return {
    exposed: new Map<string, unknown>(),
    listeners,
    invoke: vi.fn<(channel: string, ...args: unknown[]) => Promise<unknown>>(),
    emit(channel: string, ...args: unknown[]) {
      for (const listener of listeners.get(channel) ?? []) listener({ sender: 'IPC event object' }, ...args);
    },
  };
});

vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, api: unknown) => fake.exposed.set(key, api) },
  ipcRenderer: {
    invoke: fake.invoke,
    on(channel: string, listener: (event: unknown, ...args: unknown[]) => void) {
      if (!fake.listeners.has(channel)) fake.listeners.set(channel, new Set());
      fake.listeners.get(channel)!.add(listener);
    },
    removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void) {
      fake.listeners.get(channel)?.delete(listener);
    },
    send: () => {
      throw new Error('the preload must not use send');
    },
  },
}));

// Main hands the preload the method names as a renderer argument (webPreferences.additionalArguments).
process.argv.push(methodsArgument(METHOD_NAMES));
await import('../../../src-preload/index');
const api = fake.exposed.get('firstFrame') as FirstFrameApi;

const chunk: PushedEvent = { name: 'request.chunk', payload: { requestId: 'r', text: 'hi', numTokens: 1 } };

beforeEach(() => {
  fake.invoke.mockReset();
});

describe('preload', () => {
  it('exposes exactly firstFrame = { methods, onEvents, platform }', () => {
    expect([...fake.exposed.keys()]).toEqual(['firstFrame']);
    expect(Object.keys(api).sort()).toEqual(['methods', 'onEvents', 'platform']);
    expect(api.platform).toBe(process.platform);
    expect(Object.keys(api.methods).sort()).toEqual([...METHOD_NAMES].sort());
    expect(Object.values(api.methods).every((fn) => typeof fn === 'function')).toBe(true);
  });

  it('each method invokes its own channel with the input ({} when omitted)', async () => {
    fake.invoke.mockResolvedValue({ ok: true, value: { isRecorded: true } });
    const input = { requestId: 'r1', clientTtftMs: 12.5 };
    await expect(api.methods['timelines.reportClientTtft'](input)).resolves.toEqual({
      ok: true,
      value: { isRecorded: true },
    });
    await api.methods['app.status']();
    expect(fake.invoke.mock.calls).toEqual([
      ['ff:call:timelines.reportClientTtft', input],
      ['ff:call:app.status', {}],
    ]);
  });

  it('turns a failed invoke into an error value, never a throw', async () => {
    fake.invoke.mockRejectedValue(new Error("No handler registered for 'ff:call:runs.list'"));
    await expect(api.methods['runs.list']()).resolves.toEqual({
      ok: false,
      error: { code: 'unavailable', message: "runs.list: No handler registered for 'ff:call:runs.list'" },
    });
  });

  it('delivers event batches without the IPC event, until unsubscribed', () => {
    const batches: PushedEvent[][] = [];
    const unsubscribe = api.onEvents((events) => batches.push(events));
    fake.emit('ff:events', [chunk]);
    fake.emit('ff:events', 'not a batch');
    fake.emit('ff:other', [chunk]);
    unsubscribe();
    unsubscribe();
    fake.emit('ff:events', [chunk]);
    expect(batches).toEqual([[chunk]]);
    expect(fake.listeners.get('ff:events')!.size).toBe(0);
  });

  it('refuses a non-function listener', () => {
    expect(() => api.onEvents('x' as never)).toThrow(TypeError);
  });
});

import { describe, expect, it } from 'vitest';
import { EVENTS_CHANNEL } from '../../../src-main/host/electron/ipc-channels';
import { createIpcBridge } from '../../../src-renderer/bridge/ipc-transport';
import { METHOD_NAMES } from '../../../src-main/service/contract/methods';
import { createFirstFrameApi } from '../../../src-preload/api';

/** A fake ipcRenderer: answers every invoke with `answer`, and lets the test push event batches. */
function fakeIpc(answer: unknown) {
  const listeners = new Set<(event: unknown, batch: unknown) => void>();
  const invoked: [string, unknown][] = [];
  return {
    invoked,
    push: (batch: unknown) => listeners.forEach((l) => l({}, batch)),
    ipc: {
      invoke: async (channel: string, input: unknown) => (invoked.push([channel, input]), answer),
      on: (_channel: string, listener: (event: unknown, batch: unknown) => void) => listeners.add(listener),
      removeListener: (_channel: string, listener: (event: unknown, batch: unknown) => void) =>
        listeners.delete(listener),
    },
  };
}

describe('the IPC bridge over the real preload API (issue 6)', () => {
  it('calls a method through its channel and validates the answer', async () => {
    const fake = fakeIpc({ ok: true, value: { wasRunning: true } });
    const bridge = createIpcBridge(createFirstFrameApi(fake.ipc, 'linux', METHOD_NAMES));
    expect(await bridge.call('chat.cancel', { requestId: 'r' })).toEqual({
      ok: true,
      value: { wasRunning: true },
    });
    expect(fake.invoked).toEqual([['ff:call:chat.cancel', { requestId: 'r' }]]);
  });

  it('receives validated event batches from the events channel', () => {
    const fake = fakeIpc(null);
    const bridge = createIpcBridge(createFirstFrameApi(fake.ipc, 'linux', METHOD_NAMES));
    const seen: unknown[] = [];
    const unsubscribe = bridge.subscribe((events) => seen.push(...events));
    fake.push([{ name: 'request.chunk', payload: { requestId: 'r', text: 'x', numTokens: 1 } }]);
    unsubscribe();
    fake.push([{ name: 'request.chunk', payload: { requestId: 'r', text: 'y', numTokens: 1 } }]);
    expect(seen).toHaveLength(1);
    expect(EVENTS_CHANNEL).toBe('ff:events');
  });
});

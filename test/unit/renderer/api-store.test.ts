import { describe, expect, it } from 'vitest';
import type { ApiStatus } from '../../../src-main/service/contract/methods';
import { createApiStore } from '../../../src-renderer/store/api-store';
import { BridgeDouble } from './bridge-double';

const OFF: ApiStatus = {
  isEnabled: false,
  isToggleable: true,
  baseUrl: null,
  port: null,
  hasApiKey: false,
  note: null,
};

describe('the API store', () => {
  it('turns the API on with the port and key as typed (empty: any port, no key)', async () => {
    const bridge = new BridgeDouble({
      'api.status': () => OFF,
      'api.setEnabled': (input) => ({ ...OFF, isEnabled: input.isEnabled, port: input.port ?? 4000 }),
    });
    const store = createApiStore(bridge);
    await store.getState().open();
    await store.getState().toggle(' 8123 ', ' secret-key ');
    expect(bridge.inputsOf('api.setEnabled')).toEqual([
      { isEnabled: true, apiKey: 'secret-key', port: 8123 },
    ]);
    expect(store.getState().status).toMatchObject({ isEnabled: true, port: 8123 });
    await store.getState().toggle('', '');
    expect(bridge.inputsOf('api.setEnabled')[1]).toEqual({ isEnabled: false, apiKey: null });
  });

  it('refuses a port that is not a whole number from 0 to 65,535 before asking the service', async () => {
    const bridge = new BridgeDouble({ 'api.status': () => OFF });
    const store = createApiStore(bridge);
    await store.getState().open();
    await store.getState().toggle('70000', '');
    expect(store.getState().error).toMatch(/whole number from 0 to 65,535/);
    expect(bridge.inputsOf('api.setEnabled')).toEqual([]);
  });

  it("shows the service's refusal and keeps the status it had", async () => {
    const store = createApiStore(new BridgeDouble({ 'api.status': () => OFF }));
    await store.getState().open();
    await store.getState().toggle('', '');
    expect(store.getState()).toMatchObject({ status: OFF, error: 'api.setEnabled not answered' });
  });
});

import { describe, expect, it } from 'vitest';
import { createUiStore } from '../../../src-renderer/store/ui-store';

describe('the UI store', () => {
  it('keeps the providers the probe pushed, so an open Settings updates without reopening', () => {
    const ui = createUiStore();
    expect(ui.getState().checkedProviders).toBeNull();
    const providers = [
      { provider: 'cpu' as const, isAvailable: true, reason: null },
      { provider: 'webgpu' as const, isAvailable: false, reason: 'webgpu: no adapter' },
      { provider: 'cuda' as const, isAvailable: false, reason: 'cuda: provider files not installed' },
    ];
    ui.getState().onEvents([{ name: 'providers.checked', payload: { providers } }]);
    expect(ui.getState().checkedProviders).toEqual(providers);
  });
});

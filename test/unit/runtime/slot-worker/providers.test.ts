import { describe, expect, it } from 'vitest';
import { providerUnavailableReason, withProvider } from '../../../../src-main/runtime/slot-worker/providers';

describe('execution provider policy', () => {
  const failing = (provider: string) =>
    provider === 'cpu' ? Promise.resolve('cpu session') : Promise.reject(new Error('No available adapters.'));

  it('uses the requested provider when it starts', async () => {
    const { value, outcome } = await withProvider(
      { provider: 'webgpu', isCpuFallbackAllowed: false },
      async (p) => `${p} session`,
    );
    expect(value).toBe('webgpu session');
    expect(outcome).toEqual({ requested: 'webgpu', used: 'webgpu', unavailableReason: null });
  });

  it('falls back to cpu with the reason only when the slot allows it', async () => {
    const allowed = await withProvider({ provider: 'webgpu', isCpuFallbackAllowed: true }, failing);
    expect(allowed.outcome).toEqual({
      requested: 'webgpu',
      used: 'cpu',
      unavailableReason: 'webgpu: no adapter',
    });
    await expect(withProvider({ provider: 'webgpu', isCpuFallbackAllowed: false }, failing)).rejects.toThrow(
      'webgpu: no adapter; falling back to cpu is not allowed for this slot',
    );
  });

  it('names missing CUDA provider files in words a user can act on', () => {
    const error = new Error('OrtSessionOptionsAppendExecutionProvider_Cuda: Failed to load shared library');
    expect(providerUnavailableReason('cuda', error)).toBe(
      'cuda: provider files not installed (see README, GPU)',
    );
  });
});

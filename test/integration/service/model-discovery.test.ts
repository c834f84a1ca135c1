import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestCore } from '../../support/core';
import { fakeEnvironment, writeOllamaModel, writeTinyGguf } from '../../support/model-stores';

const root = mkdtempSync(path.join(os.tmpdir(), 'ff-discovery-service-'));
const home = path.join(root, 'home');
const dataDir = path.join(root, 'data');
const environment = fakeEnvironment(home);
const open = (discoverModels?: boolean) =>
  createTestCore(dataDir, { discoveryEnvironment: environment, discoverModels });

async function call<T>(promise: Promise<{ ok: true; value: T } | { ok: false; error: { message: string } }>) {
  const result = await promise;
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

writeTinyGguf(path.join(root, 'src', 'tiny.gguf'));
writeOllamaModel(
  path.join(home, '.ollama', 'models'),
  ['registry.ollama.ai', 'library', 'tiny', 'latest'],
  [
    { type: 'model', file: path.join(root, 'src', 'tiny.gguf') },
    { type: 'params', text: JSON.stringify({ temperature: 0.5 }) },
  ],
);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('discovery of other programs’ models through the service', () => {
  it('is off at first: no models from other programs, every place `off`', async () => {
    const core = await open();
    try {
      const state = await call(core.service.call('models.discovery', {}));
      expect(state.isEnabled).toBe(false);
      expect(state.places.map((p) => [p.label, p.state])).toEqual([
        ['Ollama', 'off'],
        ['LM Studio', 'off'],
        ['LM Studio', 'off'],
        ['Hugging Face cache', 'off'],
      ]);
      const models = await call(core.service.call('models.list', {}));
      expect(models.every((m) => m.source === 'bundled')).toBe(true);
    } finally {
      await core.close();
    }
  });

  it('once turned on lists them with their store, and stays on after a restart', async () => {
    const first = await open();
    try {
      const state = await call(first.service.call('models.setDiscovery', { isEnabled: true }));
      expect(state).toMatchObject({ isEnabled: true, isPersistent: true });
      expect(state.places[0]).toMatchObject({ source: 'ollama', state: 'found', numModels: 1 });
    } finally {
      await first.close();
    }
    const second = await open();
    try {
      const models = await call(second.service.call('models.list', {}));
      expect(models.find((m) => m.source === 'ollama')).toMatchObject({
        modelId: 'tiny:latest',
        displayName: 'tiny:latest · Ollama',
        defaultSampling: { source: 'Ollama parameters', temperature: 0.5 },
        status: 'unsupported',
        error: expect.stringMatching(/^architecture mamba \(supported: llama, /),
      });
    } finally {
      await second.close();
    }
  });

  it('follows --discover-models over the kept choice, and refuses a malformed switch', async () => {
    const core = await open(false);
    try {
      expect((await call(core.service.call('models.discovery', {}))).isEnabled).toBe(false);
      const bad = await core.service.call('models.setDiscovery', { isEnabled: 'yes' } as never);
      expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
      expect((await call(core.service.call('models.discovery', {}))).isEnabled).toBe(false);
    } finally {
      await core.close();
    }
  });
});

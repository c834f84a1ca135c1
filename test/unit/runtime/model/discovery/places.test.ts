import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { usualPlaces } from '../../../../../src-main/runtime/model/discovery/places';
import { fakeEnvironment } from '../../../../support/model-stores';

const home = mkdtempSync(path.join(os.tmpdir(), 'ff-places-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('the usual places of other programs’ models', () => {
  it('are the home folder’s Ollama, LM Studio and Hugging Face cache folders by default', () => {
    expect(usualPlaces(fakeEnvironment(home), true)).toEqual([
      { source: 'ollama', path: path.join(home, '.ollama', 'models') },
      { source: 'lm-studio', path: path.join(home, '.lmstudio', 'models') },
      { source: 'lm-studio', path: path.join(home, '.cache', 'lm-studio', 'models') },
      { source: 'hf-cache', path: path.join(home, '.cache', 'huggingface', 'hub') },
    ]);
  });

  it('follow the variables each program reads (OLLAMA_MODELS first, HF_HUB_CACHE over HF_HOME)', () => {
    const env = { OLLAMA_MODELS: '/srv/ollama', HF_HOME: '/data/hf', XDG_CACHE_HOME: '/xdg' };
    const places = usualPlaces(fakeEnvironment(home, env), true);
    expect(places[0]).toEqual({ source: 'ollama', path: '/srv/ollama' });
    expect(places.find((p) => p.source === 'hf-cache')?.path).toBe('/data/hf/hub');
    const hub = usualPlaces(fakeEnvironment(home, { ...env, HF_HUB_CACHE: '/hub' }), true);
    expect(hub.find((p) => p.source === 'hf-cache')?.path).toBe('/hub');
    const xdg = usualPlaces(fakeEnvironment(home, { XDG_CACHE_HOME: '/xdg' }), true);
    expect(xdg.find((p) => p.source === 'hf-cache')?.path).toBe('/xdg/huggingface/hub');
  });

  it('include the folder LM Studio’s home pointer names, read only when discovery is on', () => {
    writeFileSync(path.join(home, '.lmstudio-home-pointer'), '/mnt/big/lmstudio\n');
    const on = usualPlaces(fakeEnvironment(home), true);
    expect(on.filter((p) => p.source === 'lm-studio').map((p) => p.path)[0]).toBe('/mnt/big/lmstudio/models');
    const off = usualPlaces(fakeEnvironment(home), false);
    expect(off.some((p) => p.path.startsWith('/mnt/big'))).toBe(false);
    writeFileSync(path.join(home, '.lmstudio-home-pointer'), 'not a path');
    expect(usualPlaces(fakeEnvironment(home), true).filter((p) => p.source === 'lm-studio')).toHaveLength(2);
  });
});

import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Runtime } from '../../../src-main/runtime/runtime';
import { toModelEntry } from '../../../src-main/service/mappers';
import { ensureGguf } from '../../../tools/gguf/cached';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from '../../support/models';
import {
  fakeEnvironment,
  treeStamp,
  writeHfRepo,
  writeOllamaModel,
  writeTinyGguf,
} from '../../support/model-stores';
import { expectNothingHeld, generate } from '../../support/runtime';

const PROMPT = { kind: 'text' as const, text: 'It is a truth universally acknowledged' };

describe('models other programs keep, listed in place when discovery is on', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'ff-discovery-'));
  const home = path.join(root, 'home');
  const discovery = { isEnabled: false, environment: fakeEnvironment(home) };
  let runtime: Runtime;
  let before: string[];

  beforeAll(async () => {
    const bundled = path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID);
    const f16 = ensureGguf(bundled, 'f16', path.join(root, 'made')).path;
    writeOllamaModel(
      path.join(home, '.ollama', 'models'),
      ['registry.ollama.ai', 'library', 'austen', 'f16'],
      [
        { type: 'model', file: f16 },
        { type: 'params', text: JSON.stringify({ temperature: 0.3, top_k: 20 }) },
      ],
    );
    const lmStudio = path.join(home, '.lmstudio', 'models', 'someone', 'Mamba-GGUF');
    writeTinyGguf(path.join(lmStudio, 'mamba-130m-Q8_0.gguf'));
    writeTinyGguf(path.join(lmStudio, `${BUNDLED_MODEL_ID}.gguf`));
    // LM Studio's older folder is a file here: that place is unreadable, the others still list.
    mkdirSync(path.join(home, '.cache', 'lm-studio'), { recursive: true });
    writeFileSync(path.join(home, '.cache', 'lm-studio', 'models'), 'not a folder');
    const files = Object.fromEntries(
      [
        'config.json',
        'generation_config.json',
        'tokenizer.json',
        'tokenizer_config.json',
        'onnx/model_q4.onnx',
      ].map((rel) => [rel, path.join(bundled, rel)]),
    );
    const hub = path.join(home, '.cache', 'huggingface', 'hub');
    writeHfRepo(hub, 'first-frame/austen-mini-onnx', files);
    // A snapshot link that leads out of its own repository is refused like any link out of a folder.
    const sneaky = writeHfRepo(hub, 'someone/sneaky-onnx', files);
    writeFileSync(path.join(home, 'secret.json'), '{"token": "do not read"}');
    rmSync(path.join(sneaky, 'config.json'));
    symlinkSync(path.join(home, 'secret.json'), path.join(sneaky, 'config.json'));
    before = treeStamp(home);
    runtime = await Runtime.create({ bundledModelsDir: BUNDLED_MODELS_DIR, numThreads: 1, discovery });
  }, 120_000);
  afterAll(async () => {
    await runtime?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('lists nothing from them while off, and names the places it would read without reading them', () => {
    expect(runtime.models().map((e) => e.source)).toEqual(runtime.models().map(() => 'bundled'));
    expect(runtime.discoveryPlaces().map((p) => [p.source, path.relative(home, p.path), p.state])).toEqual([
      ['ollama', '.ollama/models', 'off'],
      ['lm-studio', '.lmstudio/models', 'off'],
      ['lm-studio', '.cache/lm-studio/models', 'off'],
      ['hf-cache', '.cache/huggingface/hub', 'off'],
    ]);
  });

  it('lists each under its own name and store once on, with what each place held', async () => {
    const entries = (await runtime.setDiscovery(true)).map(toModelEntry);
    const discovered = entries.filter((e) => e.source !== 'bundled');
    expect(discovered.map((e) => [e.displayName, e.error === null])).toEqual([
      ['austen:f16 · Ollama', false],
      ['lm-studio/ff-austen-mini · LM Studio', false],
      ['mamba-130m-Q8_0 · LM Studio', false],
      ['first-frame/austen-mini-onnx · q4 · Hugging Face cache', true],
      ['someone/sneaky-onnx · Hugging Face cache', false],
    ]);
    expect(discovered[4]!.error).toMatch(
      /^config\.json: is a link that leads outside the model folder; refused, not read/,
    );
    expect(discovered[4]!.error).not.toMatch(/do not read/);
    const austen = discovered[0]!;
    expect(austen.error).toMatch(/^model blob sha256-[0-9a-f]{64}: is a GGUF model \(llama, f16, 6 layers/);
    expect(austen.defaultSampling).toMatchObject({ source: 'Ollama parameters', temperature: 0.3, topK: 20 });
    expect(discovered[2]).toMatchObject({
      status: 'unsupported',
      error: expect.stringMatching(/^architecture mamba \(supported: llama, /),
    });
    expect(runtime.discoveryPlaces().map((p) => [p.state, p.numModels, p.reason])).toEqual([
      ['found', 1, null],
      ['found', 2, null],
      ['unreadable', null, 'is a file, not a folder'],
      ['found', 2, null],
    ]);
  });

  it('resolves a name holding a colon (an Ollama tag) and refuses it with its listing reason', () => {
    const resolved = runtime.catalogue.resolve('austen:f16');
    expect(resolved).toBeInstanceOf(Error);
    expect((resolved as Error).message).toMatch(/is a GGUF model/);
  });

  it('runs an ONNX folder from the Hugging Face cache (files linked into its blobs) like the bundled one', async () => {
    const cached = await generate(runtime, { modelId: 'first-frame/austen-mini-onnx', prompt: PROMPT });
    const bundled = await generate(runtime, { modelId: `${BUNDLED_MODEL_ID}:q4`, prompt: PROMPT });
    expect(cached.errorMessage ?? null).toBeNull();
    expect(cached.tokenIds.length).toBeGreaterThan(0);
    expect(cached.tokenIds).toEqual(bundled.tokenIds);
    expectNothingHeld(runtime);
  }, 120_000);

  it('never writes into the places it reads', () => {
    expect(treeStamp(home)).toEqual(before);
    expect(readdirSync(path.join(home, '.ollama', 'models'))).toEqual(['blobs', 'manifests']);
  });

  it('drops them again when turned off', async () => {
    const entries = await runtime.setDiscovery(false);
    expect(entries.every((e) => e.source === 'bundled')).toBe(true);
    expect(runtime.discoveryPlaces().every((p) => p.state === 'off')).toBe(true);
  });
});

import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hfCacheModels } from '../../../../../src-main/runtime/model/discovery/hf-cache';
import { lmStudioModels } from '../../../../../src-main/runtime/model/discovery/lm-studio-models';
import { writeHfRepo, writeTinyGguf } from '../../../../support/model-stores';

const root = mkdtempSync(path.join(os.tmpdir(), 'ff-stores-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const gguf = path.join(root, 'src', 'tiny.gguf');
writeTinyGguf(gguf);
const text = (name: string, content = '{}') => {
  const file = path.join(root, 'src', name);
  writeFileSync(file, content);
  return file;
};

describe('LM Studio’s models folder', () => {
  it('lists each GGUF model by its file name (split sets once, vision projectors not) and MLX folders by publisher/model', async () => {
    const models = path.join(root, 'lmstudio');
    const repo = path.join(models, 'lmstudio-community', 'Llama-3.2-3B-Instruct-GGUF');
    writeTinyGguf(path.join(repo, 'Llama-3.2-3B-Instruct-Q4_K_M.gguf'));
    writeTinyGguf(path.join(repo, 'mmproj-model-f16.gguf'));
    writeTinyGguf(path.join(models, 'big', 'Big-GGUF', 'Big-Q8_0-00001-of-00002.gguf'));
    writeTinyGguf(path.join(models, 'big', 'Big-GGUF', 'Big-Q8_0-00002-of-00002.gguf'));
    const mlx = path.join(models, 'mlx-community', 'Qwen3-4B-4bit');
    mkdirSync(mlx, { recursive: true });
    writeFileSync(path.join(mlx, 'config.json'), '{}');
    writeFileSync(path.join(mlx, 'model.safetensors'), 'x');
    const found = await lmStudioModels(models);
    expect(found.map((m) => [m.name, m.kind, path.relative(models, m.path)])).toEqual([
      ['Big-Q8_0', 'gguf', 'big/Big-GGUF/Big-Q8_0-00001-of-00002.gguf'],
      [
        'Llama-3.2-3B-Instruct-Q4_K_M',
        'gguf',
        'lmstudio-community/Llama-3.2-3B-Instruct-GGUF/Llama-3.2-3B-Instruct-Q4_K_M.gguf',
      ],
      ['mlx-community/Qwen3-4B-4bit', 'folder', 'mlx-community/Qwen3-4B-4bit'],
    ]);
    expect(found.every((m) => m.source === 'lm-studio' && m.problem === null)).toBe(true);
  });
});

describe('the Hugging Face cache', () => {
  const hub = path.join(root, 'hub');
  const config = text('config.json');
  const onnx = text('model.onnx', 'onnx');

  it('lists ONNX folders and GGUF files of each repository’s checked-out snapshot, by repository name', async () => {
    writeHfRepo(hub, 'onnx-community/Qwen3-0.6B-ONNX', { 'config.json': config, 'onnx/model_q4.onnx': onnx });
    writeHfRepo(hub, 'Qwen/Qwen2.5-0.5B-Instruct-GGUF', { 'qwen2.5-0.5b-instruct-q4_k_m.gguf': gguf });
    writeHfRepo(hub, 'bartowski/Llama-3.2-1B-Instruct-GGUF', {
      'Llama-3.2-1B-Instruct-Q4_K_M.gguf': gguf,
      'Llama-3.2-1B-Instruct-Q8_0.gguf': gguf,
    });
    writeHfRepo(hub, 'microsoft/Phi-3-mini-4k-instruct-onnx', {
      'cpu_and_mobile/cpu-int4-rtn-block-32/genai_config.json': config,
      'cpu_and_mobile/cpu-int4-rtn-block-32/phi3.onnx': onnx,
      'directml/directml-int4-awq-block-128/genai_config.json': config,
    });
    writeHfRepo(hub, 'meta-llama/Llama-3.2-1B', { 'config.json': config, 'model.safetensors': onnx });
    mkdirSync(path.join(hub, 'datasets--squad', 'snapshots'), { recursive: true });
    const found = await hfCacheModels(hub);
    expect(found.map((m) => [m.name, m.kind])).toEqual([
      ['Qwen/Qwen2.5-0.5B-Instruct-GGUF', 'gguf'],
      ['bartowski/Llama-3.2-1B-Instruct-GGUF/Llama-3.2-1B-Instruct-Q4_K_M', 'gguf'],
      ['bartowski/Llama-3.2-1B-Instruct-GGUF/Llama-3.2-1B-Instruct-Q8_0', 'gguf'],
      ['microsoft/Phi-3-mini-4k-instruct-onnx/cpu_and_mobile/cpu-int4-rtn-block-32', 'folder'],
      ['microsoft/Phi-3-mini-4k-instruct-onnx/directml/directml-int4-awq-block-128', 'folder'],
      ['onnx-community/Qwen3-0.6B-ONNX', 'folder'],
    ]);
    // Paths stay in the snapshot (links are not resolved away), so split sets and folders read as laid out.
    expect(found.every((m) => m.path.includes(`${path.sep}snapshots${path.sep}`))).toBe(true);
  });

  it('takes the newest snapshot when refs/main is missing or names none that is present', async () => {
    const lone = path.join(root, 'hub2');
    const old = writeHfRepo(lone, 'org/model-GGUF', { 'old.gguf': gguf });
    const repo = path.dirname(path.dirname(old));
    const newer = path.join(repo, 'snapshots', 'f'.repeat(40));
    mkdirSync(newer);
    writeTinyGguf(path.join(newer, 'new.gguf'));
    utimesSync(old, new Date(2020, 0, 1), new Date(2020, 0, 1));
    writeFileSync(path.join(repo, 'refs', 'main'), 'e'.repeat(40));
    expect((await hfCacheModels(lone)).map((m) => path.basename(m.path))).toEqual(['new.gguf']);
    rmSync(path.join(repo, 'refs'), { recursive: true });
    expect((await hfCacheModels(lone)).map((m) => path.basename(m.path))).toEqual(['new.gguf']);
  });
});

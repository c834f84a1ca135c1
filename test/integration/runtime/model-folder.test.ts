import { cpSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadModelFolder } from '../../../src-main/runtime/model/load-folder';
import { ModelFolderError } from '../../../src-main/runtime/model/model-folder-error';
import { Runtime } from '../../../src-main/runtime/runtime';
import { chat, generate, TEST_MODEL_ID, TEST_MODELS_DIR } from '../../support/runtime';

const dirs: string[] = [];
function copyModel(name: string): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'ff-folder-'));
  dirs.push(root);
  const dir = path.join(root, name);
  cpSync(path.join(TEST_MODELS_DIR, TEST_MODEL_ID), dir, { recursive: true });
  return dir;
}

describe('model folder loader', () => {
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('names tokenizer.json when it is missing', () => {
    const dir = copyModel('m');
    rmSync(path.join(dir, 'tokenizer.json'));
    expect(() => loadModelFolder(dir)).toThrow(/^tokenizer\.json: missing/);
  });

  it('names config.json and the field when the config is malformed', () => {
    const dir = copyModel('m');
    const config = JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ ...config, vocab_size: 'many' }));
    expect(() => loadModelFolder(dir)).toThrow(ModelFolderError);
    expect(() => loadModelFolder(dir)).toThrow(
      /^config\.json: vocab_size must be a positive integer, got "many"/,
    );
  });

  it('lists a truncated onnx/model.onnx as broken at listing, naming the file, and never loads a slot for it', async () => {
    const dir = copyModel('truncated');
    const onnx = path.join(dir, 'onnx', 'model.onnx');
    truncateSync(onnx, Math.floor(readFileSync(onnx).length / 3));
    const runtime = await Runtime.create({ bundledModelsDir: path.dirname(dir), numThreads: 1 });
    try {
      const entry = runtime.catalogue.entryOf('truncated');
      expect(entry?.status).toBe('broken');
      const result = await generate(runtime, { modelId: 'truncated', prompt: chat('Hi') });
      expect(result.timeline.finishReason).toBe('rejected');
      expect(result.errorMessage).toMatch(/^onnx\/model\.onnx: ends early: .* truncated$/);
      expect(runtime.slots()).toHaveLength(0);
    } finally {
      await runtime.close();
    }
  });

  it('fails the slot naming both counts when config.json has the wrong layer count', async () => {
    const dir = copyModel('wrong-layers');
    const config = JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8')) as Record<string, number>;
    const actual = config['num_hidden_layers']!;
    writeFileSync(
      path.join(dir, 'config.json'),
      JSON.stringify({ ...config, num_hidden_layers: actual + 1 }),
    );
    const runtime = await Runtime.create({ bundledModelsDir: path.dirname(dir), numThreads: 1 });
    try {
      const result = await generate(runtime, { modelId: 'wrong-layers', prompt: chat('Hi') });
      expect(result.errorMessage).toContain(
        `graph has ${actual} layers of past_key_values but config.json num_hidden_layers is ${actual + 1}`,
      );
    } finally {
      await runtime.close();
    }
  });
});

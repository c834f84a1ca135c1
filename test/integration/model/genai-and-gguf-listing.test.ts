import { copyFileSync, mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectGeneration } from '../../../src-main/runtime/collect';
import { Runtime } from '../../../src-main/runtime/runtime';
import { GGUF_ARCHITECTURES } from '../../../src-main/runtime/model/gguf/gguf-architecture';
import { ensureGguf } from '../../../tools/gguf/cached';
import { convertFolderToGguf } from '../../../tools/gguf/convert';
import { writeGguf } from '../../../tools/gguf/gguf-file';
import { writeGenaiFolder } from '../../support/genai-folder';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from '../../support/models';
import { expectNothingHeld } from '../../support/runtime';

const PROMPT = { kind: 'text' as const, text: 'It is a truth universally acknowledged' };

describe('onnxruntime-genai folders and GGUF files in the models folder', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'ff-genai-gguf-'));
  const models = path.join(root, 'models');
  let runtime: Runtime;

  beforeAll(async () => {
    mkdirSync(models);
    writeGenaiFolder(path.join(models, 'genai-mini'));
    writeGenaiFolder(path.join(models, 'genai-vision'), (c) => {
      (c['model'] as Record<string, unknown>)['vision'] = { filename: 'vision.onnx' };
      (c['model'] as Record<string, unknown>)['embedding'] = { filename: 'embedding.onnx' };
    });
    writeGenaiFolder(path.join(models, 'genai-embeds'), (c) => {
      const inputs = ((c['model'] as Record<string, Record<string, unknown>>)['decoder']!['inputs'] ??=
        {}) as Record<string, string>;
      delete inputs['input_ids'];
      inputs['inputs_embeds'] = 'inputs_embeds';
    });
    const gguf = ensureGguf(
      path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID),
      'f16',
      path.join(root, 'made'),
    ).path;
    copyFileSync(gguf, path.join(models, 'austen-f16.gguf'));
    copyFileSync(gguf, path.join(models, 'cut.gguf'));
    truncateSync(path.join(models, 'cut.gguf'), 20_000);
    writeGguf(
      path.join(models, 'mamba-130m.gguf'),
      [['general.architecture', { type: 'string', value: 'mamba' }]],
      [],
    );
    convertFolderToGguf({
      modelDir: path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID),
      type: 'q8_0',
      outPath: path.join(models, 'qwen2-no-bias.gguf'),
      architecture: 'qwen2',
    });
    mkdirSync(path.join(models, 'split-set'));
    copyFileSync(gguf, path.join(models, 'split-set', 'big-00001-of-00002.gguf'));
    mkdirSync(path.join(models, 'torch-only'));
    writeFileSync(path.join(models, 'torch-only', 'model.safetensors'), 'not really');
    runtime = await Runtime.create({
      bundledModelsDir: BUNDLED_MODELS_DIR,
      userModelsDir: models,
      numThreads: 1,
    });
  }, 120_000);
  afterAll(async () => {
    await runtime?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('lists a folder in the builder’s layout (no config.json) as its genai variant, with storage and default sampling', () => {
    const entry = runtime.catalogue.entryOf('genai-mini');
    expect(entry).toMatchObject({ status: 'ok', modelId: 'genai-mini:genai', variant: 'genai' });
    if (entry?.status !== 'ok') return;
    const { folder, graph } = entry.model;
    expect(folder.format).toBe('genai');
    expect(folder.shape).toMatchObject({
      numLayers: 6,
      numKvHeads: 4,
      headDim: 32,
      vocabSize: 4096,
      maxPositions: 2048,
    });
    expect(folder.eosIds).toEqual(expect.arrayContaining([4, 0]));
    expect(folder.tokenizer.eosToken).toBe('<|end|>'); // from special_tokens_map.json
    expect(graph.file).toBe('model.onnx');
    expect(graph.externalData.map((f) => f.location)).toEqual(['model.onnx.data']);
    expect(graph.weightDtype).toMatch(/int4/);
    expect(folder.defaultSampling).toEqual({
      source: 'genai_config.json search',
      doSample: true,
      temperature: 0.7,
      topK: 40,
      topP: 0.9,
      repetitionPenalty: 1,
    });
  });

  it('answers from the genai folder with the same greedy tokens as the same weights in the bundled folder', async () => {
    const ask = (modelId: string) =>
      collectGeneration(runtime, {
        requestId: `r-${modelId}`,
        modelId,
        prompt: PROMPT,
        maxTokens: 12,
        temperature: 0,
      });
    const genai = await ask('genai-mini');
    const bundled = await ask(`${BUNDLED_MODEL_ID}:q4`);
    expect(genai.errorMessage ?? null).toBeNull();
    expect(genai.tokenIds.length).toBeGreaterThan(0);
    expect(genai.tokenIds).toEqual(bundled.tokenIds);
    expectNothingHeld(runtime);
  }, 120_000);

  it.each([
    ['genai-vision', /^genai_config\.json: is a multi-model pipeline \(embedding, vision\)/],
    ['genai-embeds', /^genai_config\.json: its decoder takes inputs_embeds/],
    [
      'torch-only',
      /^model\.safetensors: holds PyTorch\/safetensors weights, with no ONNX model and no config\.json/,
    ],
    [
      'austen-f16',
      /^austen-f16\.gguf: is a GGUF model \(llama, f16, 6 layers, 4096-token vocabulary, stored as fp16\)/,
    ],
    ['cut', /^cut\.gguf: is a GGUF file that cannot be used: .*truncated/],
    [
      'qwen2-no-bias',
      /^qwen2-no-bias\.gguf: is a GGUF file that cannot be used: has no blk\.0\.attn_q\.bias tensor/,
    ],
    [
      'split-set',
      /^big-00001-of-00002\.gguf: is a GGUF file that cannot be used: is part of a split set whose big-00002-of-00002\.gguf is missing/,
    ],
  ])(
    '%s is listed with the format and the reason named, and a request for it is refused with it',
    async (name, error) => {
      const entry = runtime.catalogue.entryOf(name);
      expect(entry?.status).toBe('broken');
      const message = entry?.status === 'broken' ? entry.error : '';
      expect(message).toMatch(error);
      expect(message).not.toMatch(/config\.json: missing/);
      const result = await collectGeneration(runtime, {
        requestId: `bad-${name}`,
        modelId: name,
        prompt: PROMPT,
        maxTokens: 2,
      });
      expect(result.timeline.finishReason).toBe('rejected');
      expect(result.errorMessage).toBe(message);
    },
  );

  it('lists a valid GGUF of an architecture not converted yet as not supported, naming the ones that are', async () => {
    const supported = Object.keys(GGUF_ARCHITECTURES).join(', ');
    const entry = runtime.catalogue.entryOf('mamba-130m');
    expect(entry).toMatchObject({
      status: 'unsupported',
      error: `architecture mamba (supported: ${supported})`,
    });
    // Asked for as its listed name or as `name:gguf`, a request is refused with that reason, never "unknown model".
    for (const modelId of ['mamba-130m', 'mamba-130m:gguf']) {
      const result = await collectGeneration(runtime, { requestId: `r-${modelId}`, modelId, prompt: PROMPT });
      expect(result.timeline.finishReason).toBe('rejected');
      expect(result.errorMessage).toBe(
        `mamba-130m: not supported yet: architecture mamba (supported: ${supported})`,
      );
    }
    const cut = await collectGeneration(runtime, { requestId: 'r-cut', modelId: 'cut:gguf', prompt: PROMPT });
    expect(cut.errorMessage).toMatch(/^cut\.gguf: is a GGUF file that cannot be used: .*truncated/);
  });
});

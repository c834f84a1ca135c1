import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from '../../support/models';
import { chat, createTestRuntime, generate } from '../../support/runtime';

// A norm weight with a NaN in it (a damaged or badly converted file) makes every score NaN: the
// model must not "answer" maxTokens empty tokens with finish `length`.

/** The bundled model's folder copied to `dir` with a NaN in its final norm's weight. */
function brokenCopy(dir: string): void {
  const from = path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID);
  mkdirSync(path.join(dir, 'onnx'), { recursive: true });
  for (const name of ['config.json', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json'])
    copyFileSync(path.join(from, name), path.join(dir, name));
  const bytes = readFileSync(path.join(from, 'onnx', 'model.onnx'));
  // The initializer: its name (field 8), then its raw data (field 9: tag 0x4a, a 2-byte length).
  const name = Buffer.from('\u0042\u0011model.norm.weight\u004a', 'latin1');
  const at = bytes.indexOf(name);
  expect(at).toBeGreaterThan(0);
  const length = (bytes[at + name.length]! & 0x7f) | (bytes[at + name.length + 1]! << 7);
  const { hidden_size: hiddenSize } = JSON.parse(readFileSync(path.join(from, 'config.json'), 'utf8')) as {
    hidden_size: number;
  };
  expect(length).toBe(hiddenSize * 4); // float32, one per hidden unit
  bytes.writeFloatLE(NaN, at + name.length + 2 + 4 * 3);
  writeFileSync(path.join(dir, 'onnx', 'model.onnx'), bytes);
}

describe('a model whose final norm weight holds a NaN', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'ff-broken-weights-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('fails its load with the plain reason, and a request hears it as an error', async () => {
    brokenCopy(path.join(root, 'models', 'broken'));
    const runtime = await createTestRuntime({ userModelsDir: path.join(root, 'models') });
    try {
      const entry = runtime.catalogue.entryOf('broken');
      if (entry?.status !== 'ok') throw new Error('the copy is not listed');
      const answer = await generate(runtime, {
        modelId: entry.modelId,
        prompt: chat('Hello?'),
        maxTokens: 8,
      });
      expect(answer.timeline.finishReason).toBe('error');
      expect(answer.errorMessage).toContain('the model produced NaN scores: its weights are broken');
      expect(answer.tokenIds).toEqual([]);
      expect(runtime.slots()[0]).toMatchObject({ status: 'failed' });
    } finally {
      await runtime.close();
    }
  });
});

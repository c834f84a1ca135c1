import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { convertModelForm } from '../../../tools/onnx-llama/model-jobs';
import { QUANTIZE_DEFAULTS, quantizeModelFolder } from '../../../tools/onnx-llama/quantize/quantize-model';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from '../../support/models';

const FOLDER = path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID);
const VARIANTS = JSON.parse(readFileSync(path.join(FOLDER, 'variants.json'), 'utf8')) as {
  model: { path: string; sha256: string; command: string };
  files: Array<{ path: string; variant: string; sha256: string; source_sha256: string; command: string }>;
};

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('the shipped quantized variants', () => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'bundled-variants-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('lists q4 and q8, each made from the shipped onnx/model.onnx', () => {
    expect(VARIANTS.files.map((f) => f.variant)).toEqual(['q4', 'q8']);
    for (const file of VARIANTS.files)
      expect(file.source_sha256).toBe(sha256(path.join(FOLDER, 'onnx', 'model.onnx')));
  });

  it('onnx/model.onnx is the fused file variants.json records, and converting it again writes exactly it', () => {
    expect(sha256(path.join(FOLDER, VARIANTS.model.path))).toBe(VARIANTS.model.sha256);
    const copy = path.join(scratch, 'model');
    mkdirSync(path.join(copy, 'onnx'), { recursive: true });
    for (const file of ['config.json', path.join('onnx', 'model.onnx')])
      copyFileSync(path.join(FOLDER, file), path.join(copy, file));
    expect(VARIANTS.model.command).toMatch(/ convert .* --form fused$/);
    convertModelForm({ modelDir: copy, form: 'fused' });
    expect(sha256(path.join(copy, 'onnx', 'model.onnx'))).toBe(VARIANTS.model.sha256);
  });

  for (const file of VARIANTS.files) {
    it(`${file.path} is the file variants.json records (sha256) and its command writes exactly it`, () => {
      expect(sha256(path.join(FOLDER, file.path))).toBe(file.sha256);
      const copy = path.join(scratch, file.variant);
      mkdirSync(path.join(copy, 'onnx'), { recursive: true });
      copyFileSync(path.join(FOLDER, 'onnx', 'model.onnx'), path.join(copy, 'onnx', 'model.onnx'));
      copyFileSync(path.join(FOLDER, 'config.json'), path.join(copy, 'config.json'));
      const bits = Number(/--bits (\d)/.exec(file.command)![1]) as 4 | 8;
      quantizeModelFolder({ ...QUANTIZE_DEFAULTS, modelDir: copy, bits });
      expect(sha256(path.join(copy, file.path))).toBe(file.sha256);
    });
  }
});

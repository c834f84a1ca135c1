import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  defaultVariantOf,
  findVariantFiles,
  modelRefOf,
  parseModelRef,
  VARIANT_FILES,
} from '../../../../src-main/runtime/model/variants';

describe('variants: one per ONNX file, named as transformers.js names them', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'ff-variants-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const folder = (name: string, files: string[]) => {
    const dir = path.join(root, name);
    for (const file of files) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), '');
    }
    return dir;
  };

  it('maps every transformers.js file name to its variant, in default-preference order', () => {
    const dir = folder('all', VARIANT_FILES.map(([, name]) => `onnx/${name}`).reverse());
    expect(findVariantFiles(dir).files.map((f) => f.variant)).toEqual([
      'fp32',
      'fp16',
      'q8',
      'q4',
      'q4f16',
      'int8',
      'uint8',
      'quantized',
      'bnb4',
      'merged',
    ]);
  });

  it('finds root-level files (Optimum) and prefers onnx/ when both hold a variant', () => {
    const dir = folder('both', ['model.onnx', 'onnx/model.onnx', 'model_q4.onnx', 'model.onnx_data']);
    expect(findVariantFiles(dir).files).toEqual([
      { variant: 'fp32', file: 'onnx/model.onnx' },
      { variant: 'q4', file: 'model_q4.onnx' },
    ]);
  });

  it('names ONNX files it does not run, with the reason, for the "no model file" error', () => {
    const dir = folder('unmerged', ['decoder_model.onnx', 'decoder_with_past_model.onnx']);
    const { files, unrun } = findVariantFiles(dir);
    expect(files).toEqual([]);
    expect(unrun.join('; ')).toMatch(/decoder_model\.onnx \(a decoder without past K\/V/);
  });

  it('defaults to the variant transformers.js_config.dtype names when present, else the first in order', () => {
    expect(defaultVariantOf({ 'transformers.js_config': { dtype: 'q4' } }, ['fp32', 'q4'])).toBe('q4');
    expect(defaultVariantOf({ 'transformers.js_config': { dtype: 'fp16' } }, ['fp32', 'q4'])).toBe('fp32');
    expect(defaultVariantOf({ 'transformers.js_config': { dtype: { model: 'q8' } } }, ['fp16', 'q8'])).toBe(
      'q8',
    );
    expect(defaultVariantOf({}, ['q4', 'merged'])).toBe('q4');
  });

  it('parses name and name:variant references; an unknown tag stays part of the name', () => {
    expect(parseModelRef('ff-austen-mini')).toEqual({ name: 'ff-austen-mini', variant: null });
    expect(parseModelRef('ff-austen-mini:q4')).toEqual({ name: 'ff-austen-mini', variant: 'q4' });
    expect(parseModelRef('user/odd:name:q8')).toEqual({ name: 'user/odd:name', variant: 'q8' });
    expect(parseModelRef('llama3:latest')).toEqual({ name: 'llama3:latest', variant: null });
    expect(modelRefOf('m', 'fp16')).toBe('m:fp16');
  });
});

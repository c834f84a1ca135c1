import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readGraphSummary } from '../../../../../src-main/runtime/model/onnx-graph/graph-summary';
import { TruncatedProto } from '../../../../../src-main/runtime/model/onnx-graph/proto-reader';
import { writeLayoutModel } from '../../../../../tools/onnx-llama/layouts';
import {
  quantizeModelFolder,
  QUANTIZE_DEFAULTS,
} from '../../../../../tools/onnx-llama/quantize/quantize-model';

describe('the light ONNX reader (structure without payloads)', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'ff-read-graph-'));
  const plain = path.join(root, 'plain');
  const external = path.join(root, 'external');
  const merged = path.join(root, 'merged');
  beforeAll(() => {
    writeLayoutModel({ layout: 'plain', outDir: plain, seed: 1 });
    writeLayoutModel({ layout: 'external-data', outDir: external, seed: 1 });
    writeLayoutModel({ layout: 'merged', outDir: merged, seed: 1 });
    quantizeModelFolder({ ...QUANTIZE_DEFAULTS, modelDir: plain, bits: 4, form: 'naive' });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('reads inputs and outputs with element types and dims, operators and weight storage', () => {
    const summary = readGraphSummary(path.join(plain, 'onnx', 'model.onnx'));
    const past = summary.inputs.find((i) => i.name === 'past_key_values.1.value')!;
    expect(past).toEqual({
      name: 'past_key_values.1.value',
      elemType: 'float32',
      dims: ['batch_size', 2, 'past_sequence_length', 16],
    });
    expect(summary.outputs.find((o) => o.name === 'logits')?.dims.at(-1)).toBe(4096);
    expect(summary.ops.get(':MatMul')).toBeGreaterThan(10);
    expect([...summary.weightBytes.keys()]).toContain('float32');
    expect(summary.external).toEqual([]);
    expect(summary.opsets).toContainEqual({ domain: '', version: 17 });
  });

  it('names each external data file and how many of its bytes the graph needs', () => {
    const summary = readGraphSummary(path.join(external, 'onnx', 'model.onnx'));
    const sizes = Object.fromEntries(
      summary.external.map((ref) => [ref.location, statSync(path.join(external, 'onnx', ref.location)).size]),
    );
    expect(Object.keys(sizes).sort()).toEqual(['model.onnx_data', 'model.onnx_data_1']);
    for (const ref of summary.external) expect(ref.neededBytes).toBe(sizes[ref.location]);
  });

  it('counts the nodes a step runs: every node of a plain graph, an If as itself plus its larger branch', () => {
    const plainSummary = readGraphSummary(path.join(plain, 'onnx', 'model.onnx'));
    const sum = (s: typeof plainSummary) => [...s.ops.values()].reduce((a, b) => a + b, 0);
    expect(plainSummary.numStepNodes).toBe(sum(plainSummary));
    const mergedSummary = readGraphSummary(path.join(merged, 'onnx', 'decoder_model_merged.onnx'));
    expect(mergedSummary.numStepNodes).toBeGreaterThan(sum(plainSummary) / 2);
    expect(mergedSummary.numStepNodes).toBeLessThan(sum(mergedSummary) - sum(plainSummary) / 2);
  });

  it('counts operators inside a merged decoder’s If branches', () => {
    const summary = readGraphSummary(path.join(merged, 'onnx', 'decoder_model_merged.onnx'));
    expect(summary.ops.get(':If')).toBe(1);
    expect(summary.ops.get(':MatMul')).toBeGreaterThan(10);
    expect(summary.inputs.map((i) => i.name)).toContain('use_cache_branch');
  });

  it('counts MatMulNBits codes and their scales as int4 weights', () => {
    const summary = readGraphSummary(path.join(plain, 'onnx', 'model_q4.onnx'));
    const total = [...summary.weightBytes.values()].reduce((a, b) => a + b, 0);
    expect(summary.weightBytes.get('int4')! / total).toBeGreaterThan(0.9);
    expect(summary.ops.get('com.microsoft:MatMulNBits')).toBe(2 * 7 + 1);
  });

  it('detects a file cut short anywhere as truncated, and a file that is no model as such', () => {
    const bytes = readFileSync(path.join(plain, 'onnx', 'model.onnx'));
    for (const fraction of [0.001, 0.3, 0.9, 0.9999]) {
      const cut = path.join(root, `cut-${fraction}.onnx`);
      writeFileSync(cut, bytes.subarray(0, Math.max(1, Math.floor(bytes.length * fraction))));
      expect(() => readGraphSummary(cut)).toThrow(TruncatedProto);
    }
    const text = path.join(root, 'text.onnx');
    writeFileSync(text, 'this is not a model at all');
    expect(() => readGraphSummary(text)).toThrow();
  });
});

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import onnxProto from 'onnx-proto';
import type { onnx as Onnx } from 'onnx-proto';
import * as ort from 'onnxruntime-node';
import { afterAll, describe, expect, it } from 'vitest';
import { buildLlamaOnnx } from '../../../../tools/onnx-llama/llama-graph';
import { greedyDecode, kvLayoutOf } from '../../../../tools/onnx-llama/ort-runner';
import { openSession, samplePrompt, tinyConfig, tinyWeights } from './tiny-model';

const FLOAT16 = 10;

describe('fp16 weight storage', () => {
  const config = tinyConfig();
  const weights = tinyWeights(config);
  const scratchDir = mkdtempSync(join(tmpdir(), 'onnx-llama-fp16-'));
  afterAll(() => rmSync(scratchDir, { recursive: true, force: true }));

  it('gives the same greedy tokens as fp32 storage on a short run', async () => {
    const prompt = samplePrompt(6, config.vocab_size);
    const runs = [];
    for (const dtype of ['float32', 'float16'] as const) {
      const session = await openSession(config, weights, dtype);
      runs.push(await greedyDecode(session, kvLayoutOf(config), prompt, 12));
      await session.release();
    }
    expect(runs[1]!.tokens).toEqual(runs[0]!.tokens);
  });

  it('stores every weight matrix as fp16 and writes about half the bytes', () => {
    const fp32Bytes = buildLlamaOnnx(config, weights, { weightDtype: 'float32' });
    const fp16Bytes = buildLlamaOnnx(config, weights, { weightDtype: 'float16' });
    const ratio = fp16Bytes.length / fp32Bytes.length;
    expect(ratio).toBeGreaterThan(0.45);
    expect(ratio).toBeLessThan(0.56);
    const graph = onnxProto.onnx.ModelProto.decode(fp16Bytes).graph as Onnx.GraphProto;
    const matrices = graph.initializer.filter((t) => t.dims!.length === 2);
    expect(matrices).toHaveLength(1 + 7 * config.num_hidden_layers);
    for (const matrix of matrices) expect(matrix.dataType).toBe(FLOAT16);
  });

  it('lets ORT fold the weight casts and fuse RMSNorm at graphOptimizationLevel all', async () => {
    const optimizedPath = join(scratchDir, 'optimized.onnx');
    const bytes = buildLlamaOnnx(config, weights, { weightDtype: 'float16' });
    const session = await ort.InferenceSession.create(bytes, {
      graphOptimizationLevel: 'all',
      optimizedModelFilePath: optimizedPath,
      logSeverityLevel: 3,
    });
    await session.release();
    const optimized = onnxProto.onnx.ModelProto.decode(readFileSync(optimizedPath)).graph as Onnx.GraphProto;
    const casts = optimized.node.filter((n) => n.opType === 'Cast');
    expect(casts.map((n) => n.input![0])).toEqual(['position_ids']);
    expect(optimized.initializer.filter((t) => t.dataType === FLOAT16)).toEqual([]);
    const numRmsNorms = 2 * config.num_hidden_layers + 1;
    expect(optimized.node.filter((n) => n.opType === 'SimplifiedLayerNormalization')).toHaveLength(
      numRmsNorms,
    );
  });
});

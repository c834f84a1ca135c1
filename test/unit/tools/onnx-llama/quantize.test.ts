import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import onnxProto from 'onnx-proto';
import { afterAll, describe, expect, it } from 'vitest';
import { buildLlamaOnnx } from '../../../../tools/onnx-llama/llama-graph';
import { writeModelFolder } from '../../../../tools/onnx-llama/write-model-folder';
import { float32ToHalfInto, halfArrayToFloat32 } from '../../../../src-main/runtime/model/float16';
import { emptyPast, kvLayoutOf, runStep } from '../../../../tools/onnx-llama/ort-runner';
import {
  blockDequantize,
  blockQuantize,
} from '../../../../src-main/runtime/model/fused-graph/block-quantize';
import { quantizeModelFolder } from '../../../../tools/onnx-llama/quantize/quantize-model';
import type { LlamaWeights } from '../../../../tools/onnx-llama/weights';
import { maxAbsDiff, samplePrompt, tinyConfig, tinyWeights } from './tiny-model';

const { onnx } = onnxProto;

describe('block quantization (MatMulNBits layout)', () => {
  it('packs 4-bit codes low nibble first and maps a block’s extreme to code 0 (symmetric)', () => {
    const rows = Float32Array.from({ length: 32 }, (_, i) => (i === 1 ? -2 : i / 100));
    const q = blockQuantize({ rows, numRows: 1, numCols: 32, bits: 4, blockSize: 32, scheme: 'symmetric' });
    expect(q.data.length).toBe(16);
    expect(q.scales[0]).toBeCloseTo(2 / 8, 6);
    expect(q.data[0]! >> 4).toBe(0); // element 1 (-2) is the high nibble of byte 0
    expect(q.data[0]! & 15).toBe(8); // element 0 (0) sits at the implicit zero point
    expect(q.zeroPoints).toBeNull();
  });

  it('dequantizes within half a step of every weight, 4 and 8 bits, both schemes, short last block padded', () => {
    const rows = Float32Array.from({ length: 3 * 40 }, (_, i) => Math.sin(i * 1.7) * (1 + (i % 5)));
    for (const bits of [4, 8] as const) {
      for (const scheme of ['symmetric', 'asymmetric'] as const) {
        const q = blockQuantize({ rows, numRows: 3, numCols: 40, bits, blockSize: 32, scheme });
        expect(q.numBlocks).toBe(2);
        const back = blockDequantize(q, 3, 40, bits);
        for (let i = 0; i < rows.length; i++) {
          const step = Math.abs(q.scales[Math.floor(i / 40) * 2 + Math.floor((i % 40) / 32)]!);
          expect(Math.abs(back[i]! - rows[i]!)).toBeLessThanOrEqual(step / 2 + 1e-6);
        }
      }
    }
  });

  it('refuses block sizes MatMulNBits does not take', () => {
    const rows = new Float32Array(48);
    expect(() =>
      blockQuantize({ rows, numRows: 1, numCols: 48, bits: 4, blockSize: 24, scheme: 'symmetric' }),
    ).toThrow(/power of two/);
  });
});

/** The weights as the quantized graph sees them: every matrix quantized and dequantized ([out, in] rows). */
function dequantizedWeights(weights: LlamaWeights, bits: 4 | 8): LlamaWeights {
  const out: LlamaWeights = new Map();
  for (const [name, tensor] of weights) {
    if (tensor.shape.length !== 2) {
      out.set(name, tensor);
      continue;
    }
    const [numRows, numCols] = tensor.shape as [number, number];
    const q = blockQuantize({
      rows: tensor.data,
      numRows,
      numCols,
      bits,
      blockSize: 32,
      scheme: 'symmetric',
    });
    out.set(name, { data: blockDequantize(q, numRows, numCols, bits), shape: tensor.shape });
  }
  return out;
}

async function logitsOf(bytesOrPath: Uint8Array | string, config: ReturnType<typeof tinyConfig>) {
  const session =
    typeof bytesOrPath === 'string'
      ? await ort.InferenceSession.create(bytesOrPath, { logSeverityLevel: 3 })
      : await ort.InferenceSession.create(bytesOrPath, { logSeverityLevel: 3 });
  const ids = samplePrompt(9, config.vocab_size);
  const step = await runStep(session, {
    inputIds: [ids],
    attentionMask: [ids.map(() => 1)],
    positionIds: [ids.map((_, i) => i)],
    past: emptyPast(kvLayoutOf(config), 1),
  });
  await session.release();
  return step.logits;
}

describe('quantize command', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'onnx-llama-quantize-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const config = tinyConfig({ hiddenSize: 64, intermediateSize: 128, vocabSize: 320 });
  const weights = tinyWeights(config);

  for (const bits of [4, 8] as const) {
    it(`q${bits}: every projection, the LM head and the tied embedding become MatMulNBits / GatherBlockQuantized, and the graph computes what the dequantized weights do`, async () => {
      const outDir = join(scratch, `q${bits}`);
      writeModelFolder({
        outDir,
        config,
        onnxBytes: buildLlamaOnnx(config, weights, { weightDtype: 'float16' }),
        weightDtype: 'float16',
      });
      const result = quantizeModelFolder({
        modelDir: outDir,
        bits,
        blockSize: 32,
        accuracyLevel: 1, // fp32 activations: the comparison below is then exact up to rounding
        scheme: 'symmetric',
        isQuantizingEmbeddings: true,
        form: 'naive',
      });
      expect(result.files.map((f) => f.path)).toEqual([join('onnx', `model_q${bits}.onnx`)]);
      expect(result.report).toMatchObject({ numMatMuls: 2 * 7 + 1, numGathers: 1 });
      const model = onnx.ModelProto.decode(readFileSync(join(outDir, 'onnx', `model_q${bits}.onnx`)));
      const ops = model.graph!.node!.map((n) => n.opType);
      expect(ops).not.toContain('Gemm');
      expect(ops.filter((op) => op === 'Cast')).toHaveLength(1); // position_ids → float only
      const fp16Rounded = new Map([...weights].map(([n, t]) => [n, { ...t, data: roundToHalf(t.data) }]));
      const reference = buildLlamaOnnx(config, dequantizedWeights(fp16Rounded, bits));
      const quantized = await logitsOf(join(outDir, 'onnx', `model_q${bits}.onnx`), config);
      const diff = maxAbsDiff(quantized, await logitsOf(reference, config));
      console.log(`q${bits} max |logit diff| vs dequantized fp32 graph: ${diff.toExponential(2)}`);
      expect(diff).toBeLessThan(2e-3);
    });
  }

  it('writes the same bytes twice (the bundled variants are reproducible)', () => {
    const outDir = join(scratch, 'q4');
    const first = readFileSync(join(outDir, 'onnx', 'model_q4.onnx'));
    quantizeModelFolder({
      modelDir: outDir,
      bits: 4,
      blockSize: 32,
      accuracyLevel: 1,
      scheme: 'symmetric',
      isQuantizingEmbeddings: true,
      form: 'naive',
    });
    expect(readFileSync(join(outDir, 'onnx', 'model_q4.onnx')).equals(first)).toBe(true);
  });

  it('names what it cannot quantize from: a folder without model.onnx', () => {
    expect(() =>
      quantizeModelFolder({
        modelDir: join(scratch, 'nothing'),
        bits: 4,
        blockSize: 32,
        accuracyLevel: 4,
        scheme: 'symmetric',
        isQuantizingEmbeddings: true,
        form: 'naive',
      }),
    ).toThrow(/onnx\/model\.onnx or model\.onnx/);
  });
});

function roundToHalf(values: Float32Array): Float32Array {
  const bits = new Uint16Array(values.length);
  float32ToHalfInto(values, bits);
  return halfArrayToFloat32(bits);
}

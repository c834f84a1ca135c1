import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { convertFolderToGguf } from '../../../../tools/gguf/convert';
import { llamaTensors, permuteForRope } from '../../../../tools/gguf/llama-tensors';
import { encodeTensor } from '../../../../tools/gguf/quantize';
import { halfBitsToFloat } from '../../../../src-main/runtime/model/float16';
import { writeRandomModel } from '../../../../tools/onnx-llama/model-jobs';
import { seededUniform } from '../../../../tools/onnx-llama/random-weights';
import { tinyConfig, tinyWeights, TINY_SHAPE } from '../onnx-llama/tiny-model';
import { readGguf } from './read-gguf';

const BUNDLED = join(__dirname, '../../../../resources/models/ff-austen-mini');
const GGML_F32 = 0;
const GGML_F16 = 1;

/** ggml's dequantization of q8_0 (d·q) and q4_0 (d·(nibble − 8)), written from the format. */
function dequantize(bytes: Uint8Array, type: 'q8_0' | 'q4_0', numValues: number): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(numValues);
  const blockBytes = type === 'q8_0' ? 34 : 18;
  for (let block = 0; block < numValues / 32; block++) {
    const at = block * blockBytes;
    const d = halfBitsToFloat(view.getUint16(at, true));
    for (let j = 0; j < 32; j++) {
      out[block * 32 + j] =
        type === 'q8_0'
          ? d * view.getInt8(at + 2 + j)
          : d * (((view.getUint8(at + 2 + (j % 16)) >> (j < 16 ? 0 : 4)) & 15) - 8);
    }
  }
  return out;
}

/** HF rotate_half RoPE of one head vector at `position`. */
function ropeHf(x: Float32Array, position: number): Float32Array {
  const half = x.length / 2;
  return Float32Array.from(x, (v, i) => {
    const angle = position / 10000 ** ((2 * (i % half)) / x.length);
    const rotated = i < half ? -x[i + half]! : x[i - half]!;
    return v * Math.cos(angle) + rotated * Math.sin(angle);
  });
}

/** llama.cpp's LLAMA rope: adjacent pairs (2i, 2i+1) rotated by the angle of frequency i. */
function ropeInterleaved(x: Float32Array, position: number): Float32Array {
  const out = new Float32Array(x.length);
  for (let i = 0; i < x.length / 2; i++) {
    const angle = position / 10000 ** ((2 * i) / x.length);
    const [a, b] = [x[2 * i]!, x[2 * i + 1]!];
    out[2 * i] = a * Math.cos(angle) - b * Math.sin(angle);
    out[2 * i + 1] = a * Math.sin(angle) + b * Math.cos(angle);
  }
  return out;
}

function matVec(data: Float32Array, numRows: number, x: Float32Array): Float32Array {
  return Float32Array.from({ length: numRows }, (_, r) =>
    x.reduce((sum, v, c) => sum + v * data[r * x.length + c]!, 0),
  );
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, v, i) => sum + v * b[i]!, 0);

describe('GGUF writer', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'gguf-writer-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('converts a model folder into a GGUF v3 with llama metadata, a gpt2 vocabulary and aligned f16 tensors holding the same weights', () => {
    const modelDir = join(scratch, 'tiny');
    writeRandomModel({
      shape: { ...TINY_SHAPE, vocabSize: 4200 },
      seed: 5,
      outDir: modelDir,
      weightDtype: 'float16',
      form: 'fused',
      tokenizerFrom: BUNDLED,
    });
    const outPath = join(scratch, 'tiny-f16.gguf');
    convertFolderToGguf({ modelDir, type: 'f16', outPath });
    const gguf = readGguf(outPath);
    expect(gguf.version).toBe(3);
    expect(gguf.metadata.get('general.architecture')).toBe('llama');
    expect(gguf.metadata.get('llama.block_count')).toBe(2);
    expect(gguf.metadata.get('llama.attention.head_count_kv')).toBe(2);
    expect(gguf.metadata.get('llama.rope.dimension_count')).toBe(16);
    expect(gguf.metadata.get('tokenizer.ggml.model')).toBe('gpt2');
    const tokens = gguf.metadata.get('tokenizer.ggml.tokens') as string[];
    const tokenizer = JSON.parse(readFileSync(join(BUNDLED, 'tokenizer.json'), 'utf8'));
    expect(tokens).toHaveLength(4200);
    expect(tokens[0]).toBe('<|endoftext|>');
    expect(tokens[4199]).toBe('[PAD4199]');
    expect(gguf.metadata.get('tokenizer.ggml.merges')).toHaveLength(tokenizer.model.merges.length);
    expect(gguf.metadata.get('tokenizer.ggml.eos_token_id')).toBe(4);
    // Tied embedding: no output.weight; every tensor on a 32-byte boundary.
    expect(gguf.tensors).toHaveLength(1 + 9 * 2 + 1);
    expect(gguf.tensors.map((t) => t.name)).not.toContain('output.weight');
    for (const t of gguf.tensors) expect((gguf.dataStart + t.offset) % 32).toBe(0);
    const embed = gguf.tensors.find((t) => t.name === 'token_embd.weight')!;
    expect([embed.ne, embed.type]).toEqual([[64, 4200], GGML_F16]);
    expect(gguf.tensors.find((t) => t.name === 'blk.0.attn_norm.weight')!.type).toBe(GGML_F32);
    const down = gguf.tensors.find((t) => t.name === 'blk.1.ffn_down.weight')!;
    expect(down.ne).toEqual([128, 64]);
  });

  it('writes output.weight only when the embedding is untied', () => {
    const config = tinyConfig({ isTiedEmbedding: false });
    const names = llamaTensors(config, tinyWeights(config), 'q8_0').map((t) => t.name);
    expect(names.at(-1)).toBe('output.weight');
  });

  it('permutes Q and K rows so llama.cpp’s interleaved rope gives the attention scores HF’s rotate-half rope gives', () => {
    const [numHeads, headDim, hidden] = [2, 8, 12];
    const uniform = seededUniform(9);
    const wq = Float32Array.from({ length: numHeads * headDim * hidden }, () => uniform() - 0.5);
    const wk = Float32Array.from({ length: numHeads * headDim * hidden }, () => uniform() - 0.5);
    const x = Float32Array.from({ length: hidden }, () => uniform() - 0.5);
    const y = Float32Array.from({ length: hidden }, () => uniform() - 0.5);
    const shape = [numHeads * headDim, hidden];
    const pq = permuteForRope({ data: wq, shape }, numHeads).data;
    const pk = permuteForRope({ data: wk, shape }, numHeads).data;
    for (let head = 0; head < numHeads; head++) {
      const slice = (v: Float32Array) => v.subarray(head * headDim, (head + 1) * headDim);
      const hf = dot(ropeHf(slice(matVec(wq, 16, x)), 7), ropeHf(slice(matVec(wk, 16, y)), 3));
      const llama = dot(
        ropeInterleaved(slice(matVec(pq, 16, x)), 7),
        ropeInterleaved(slice(matVec(pk, 16, y)), 3),
      );
      expect(Math.abs(hf - llama)).toBeLessThan(1e-5);
    }
  });

  // q8_0 rounds to the nearest of ±127 steps (half a step, plus the fp16 scale's rounding);
  // q4_0 takes the signed extreme as −8 steps, so the opposite extreme clips to +7: one step.
  it('quantizes to q8_0 and q4_0 blocks that dequantize within their rounding error', () => {
    const uniform = seededUniform(4);
    const values = Float32Array.from({ length: 64 * 3 }, () => (uniform() - 0.5) * 4);
    for (const [type, levels, tolerance] of [
      ['q8_0', 127, 0.6],
      ['q4_0', 8, 1.01],
    ] as const) {
      const bytes = encodeTensor(values, 64, type);
      expect(bytes.length).toBe((values.length / 32) * (type === 'q8_0' ? 34 : 18));
      const back = dequantize(bytes, type, values.length);
      for (let block = 0; block < values.length / 32; block++) {
        const slice = values.subarray(block * 32, block * 32 + 32);
        const step = Math.max(...slice.map(Math.abs)) / levels;
        for (let j = 0; j < 32; j++)
          expect(Math.abs(back[block * 32 + j]! - slice[j]!)).toBeLessThanOrEqual(step * tolerance);
      }
    }
  });
});

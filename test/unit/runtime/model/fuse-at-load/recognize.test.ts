import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { outInBits } from '../../../../../src-main/runtime/model/fused-graph/float-matrix';
import type {
  DecoderWeightSet,
  MatrixWeight,
} from '../../../../../src-main/runtime/model/fused-graph/weight-set';
import { fuseDecoder } from '../../../../../src-main/runtime/model/fuse-at-load/fuse';
import { recognizeDecoder } from '../../../../../src-main/runtime/model/fuse-at-load/recognize';
import type { Recognition } from '../../../../../src-main/runtime/model/fuse-at-load/recognize';
import { makeLlamaConfig, TINY_SHAPE } from '../../../../../tools/onnx-llama/config';
import { buildLlamaOnnx } from '../../../../../tools/onnx-llama/llama-graph';
import { randomLlamaWeights } from '../../../../../tools/onnx-llama/random-weights';
import { writeModelFolder } from '../../../../../tools/onnx-llama/write-model-folder';
import { writeLayoutModel } from '../../../../../tools/onnx-llama/layouts';
import type { LayoutName } from '../../../../../tools/onnx-llama/layouts';
import {
  editGraph,
  expectedWeightSet,
  FUSION_SEED,
  loadGraph,
  naiveFixtures,
  withGemmaNorm,
  withLayerNorm,
  withProjectionBias,
  withScaledEmbedding,
  withTanhActivation,
} from '../../../../support/fusion-graphs';
import type { LoadedGraph } from '../../../../support/fusion-graphs';
import { BUNDLED_MODEL_ID, naiveBundledModelsDir } from '../../../../support/models';

const root = mkdtempSync(path.join(tmpdir(), 'ff-recognize-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const fixtures = naiveFixtures(root);
const plain = fixtures.find((g) => g.name === 'plain')!;

function recognize(graph: LoadedGraph, bytes = graph.bytes): Recognition {
  return recognizeDecoder(bytes, graph.externalData, graph.hints);
}

function fusable(recognition: Recognition): Extract<Recognition, { kind: 'fusable' }> {
  if (recognition.kind !== 'fusable') throw new Error(`not fusable: ${JSON.stringify(recognition)}`);
  return recognition;
}

/** A float matrix's float32 bits in out × in order (the order the writer stores either way). */
const bitsOf = (weight: MatrixWeight): Buffer => {
  if (weight.kind !== 'float') throw new Error('expected a float weight');
  const { bits } = outInBits(weight, 'float32');
  return Buffer.from(bits.buffer, bits.byteOffset, bits.byteLength);
};

function expectSameWeights(found: DecoderWeightSet, expected: DecoderWeightSet): void {
  expect(found.dims).toEqual(expected.dims);
  expect(found.lmHead).toBeNull();
  expect(bitsOf(found.embedding).equals(bitsOf(expected.embedding))).toBe(true);
  found.layers.forEach((layer, i) => {
    for (const key of ['q', 'k', 'v', 'o', 'gate', 'up', 'down'] as const)
      expect(bitsOf(layer[key]).equals(bitsOf(expected.layers[i]![key])), `layers.${i}.${key}`).toBe(true);
    expect(Array.from(layer.inputNorm.data)).toEqual(Array.from(expected.layers[i]!.inputNorm.data));
  });
}

describe('recognizing the naive layouts', () => {
  it.each([
    'plain',
    'external-data',
    'root-file',
    'merged',
    'no-position-ids',
    'logits-to-keep',
    'fp16-past',
    'mha',
    'matmul-head',
  ] as LayoutName[])('extracts the weights the %s layout was written from, exactly', (layout) => {
    const found = fusable(recognize(fixtures.find((g) => g.name === layout)!));
    expectSameWeights(found.set, expectedWeightSet(layout));
    expect(found.isExact).toBe(layout !== 'fp16-past');
  });

  it('keeps q4 and q8 blocks as blocks, reading the tied head from the embedding bytes', () => {
    for (const name of ['q4', 'q8']) {
      const { set, isExact } = fusable(recognize(fixtures.find((g) => g.name === name)!));
      const bits = name === 'q4' ? 4 : 8;
      expect(set.embedding).toMatchObject({
        kind: 'blocks',
        bits,
        blockSize: 32,
        numRows: 4096,
        numCols: 64,
      });
      expect(set.lmHead).toBeNull();
      expect(set.dims.isTiedEmbedding).toBe(true);
      for (const layer of set.layers)
        expect(layer.q).toMatchObject({ kind: 'blocks', bits, zeroPoints: null });
      expect(isExact).toBe(false);
    }
  });

  it('takes an asymmetric q4 graph: float embedding, quantized head with zero points (untied)', () => {
    const { set } = fusable(recognize(fixtures.find((g) => g.name === 'q4-asymmetric')!));
    expect(set.embedding.kind).toBe('float');
    expect(set.dims.isTiedEmbedding).toBe(false);
    expect(set.lmHead).toMatchObject({ kind: 'blocks', bits: 4 });
    expect((set.lmHead as { zeroPoints: Uint8Array | null }).zeroPoints).not.toBeNull();
  });

  it('takes q, k and v biases (Qwen2) into the weight set, zeros where a projection adds none', () => {
    const values = (width: number, scale: number) =>
      Array.from({ length: width }, (_, i) => Math.fround(scale * i));
    const bytes = editGraph(plain.bytes, (graph) => {
      withProjectionBias('layers.1.self_attn.q_proj', 64, (i) => values(64, 0.01)[i]!)(graph);
      withProjectionBias('layers.1.self_attn.k_proj', 32, (i) => values(32, -0.02)[i]!)(graph);
    });
    const { set } = fusable(recognize(plain, bytes));
    expect(set.layers[0]!.qkvBias).toBeUndefined();
    const bias = set.layers[1]!.qkvBias!;
    expect(Array.from(bias.q.data)).toEqual(values(64, 0.01));
    expect(Array.from(bias.k.data)).toEqual(values(32, -0.02));
    expect(Array.from(bias.v.data)).toEqual(new Array<number>(32).fill(0));
    expect(bias.v).toMatchObject({ dtype: 'float32', shape: [32] });
  });

  it('fuses the bundled model in every variant, written naive, to 10 nodes per layer', () => {
    const dir = path.join(naiveBundledModelsDir(), BUNDLED_MODEL_ID);
    for (const file of ['onnx/model.onnx', 'onnx/model_q4.onnx', 'onnx/model_q8.onnx']) {
      const graph = loadGraph(file, dir, file);
      const fused = fuseDecoder(graph.bytes, graph.externalData, graph.hints);
      expect(fused, file).toMatchObject({ kind: 'fused', nodesPerLayer: 10 });
    }
  });
});

describe('what does not fuse is refused with the part and the reason', () => {
  const refusalOf = (edit: Parameters<typeof editGraph>[1]) => recognize(plain, editGraph(plain.bytes, edit));

  it.each([
    ['layers.0.self_attn.o_proj', 64, 'layers.0'],
    ['layers.1.mlp.down_proj', 64, 'layers.1'],
    ['layers.0.mlp.gate_proj', 128, 'layers.0.mlp.gate_proj'],
  ] as const)(
    'a bias the fused form does not add (%s), naming its Add and its weight',
    (weightPart, width, part) => {
      const escaped = weightPart.replaceAll('.', '\\.');
      expect(refusalOf(withProjectionBias(weightPart, width))).toEqual({
        kind: 'refused',
        part,
        reason: expect.stringMatching(
          new RegExp(
            `^its projection of \\S*${escaped}\\S* has a bias \\(the Add "[^"]+/Add" of a constant after it\\); only q, k and v biases fuse$`,
          ),
        ) as string,
      });
    },
  );

  it("a q/k/v bias that is not a vector of the projection's outputs", () => {
    expect(refusalOf(withProjectionBias('layers.0.self_attn.v_proj', 31))).toMatchObject({
      kind: 'refused',
      part: 'layers.0.self_attn.v_proj',
      reason: expect.stringMatching(
        /^its bias \(the Add "[^"]+"\) is not a stored float vector of its 32 outputs/,
      ) as string,
    });
  });

  it('a LayerNorm instead of an RMSNorm', () => {
    expect(refusalOf(withLayerNorm(64))).toEqual({
      kind: 'refused',
      part: 'layers.0.input_layernorm',
      reason: 'it is a LayerNorm (subtracts the mean, adds a bias), not an RMSNorm',
    });
  });

  it("Gemma's 1 + weight norm", () => {
    expect(refusalOf(withGemmaNorm)).toMatchObject({
      part: 'layers.0.input_layernorm',
      reason: expect.stringContaining('Gemma') as string,
    });
  });

  it('a scaled embedding', () => {
    expect(refusalOf(withScaledEmbedding(64))).toMatchObject({
      part: 'embedding',
      reason: expect.stringContaining('scaled') as string,
    });
  });

  it('an activation other than SiLU', () => {
    expect(refusalOf(withTanhActivation)).toEqual({
      kind: 'refused',
      part: 'layers.1.mlp',
      reason: 'its activation is tanh, not SiLU',
    });
  });

  it('a sliding window config.json declares', () => {
    const hints = { ...plain.hints, config: { ...plain.hints.config, sliding_window: 16 } };
    expect(recognizeDecoder(plain.bytes, [], hints)).toMatchObject({
      part: 'self_attn',
      reason: expect.stringContaining('sliding window of 16') as string,
    });
  });

  it('a head size GroupQueryAttention cannot rotate', () => {
    const dir = path.join(root, 'head-dim-8');
    const config = makeLlamaConfig({ ...TINY_SHAPE, numHeads: 8, numKvHeads: 4 });
    const onnxBytes = buildLlamaOnnx(config, randomLlamaWeights(config, { seed: FUSION_SEED }));
    writeModelFolder({ outDir: dir, config, onnxBytes, weightDtype: 'float32' });
    expect(recognize(loadGraph('head-dim-8', dir, 'onnx/model.onnx'))).toEqual({
      kind: 'refused',
      part: 'self_attn',
      reason: "head dim 8 is not a multiple of 16, which ONNX Runtime's GroupQueryAttention needs to rotate",
    });
  });
});

describe('graphs already fused', () => {
  it('are left as they are', () => {
    const dir = path.join(root, 'fused');
    writeLayoutModel({ layout: 'plain', outDir: dir, seed: FUSION_SEED, form: 'fused' });
    const graph = loadGraph('fused', dir, 'onnx/model.onnx');
    expect(recognize(graph)).toEqual({
      kind: 'already-fused',
      reason: "it already runs ONNX Runtime's GroupQueryAttention",
    });
  });
});

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import onnxProto from 'onnx-proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockDequantize } from '../../../../../src-main/runtime/model/fused-graph/block-quantize';
import { quantizeWeightSet } from '../../../../../src-main/runtime/model/fused-graph/quantize-weight-set';
import { writeFusedDecoder } from '../../../../../src-main/runtime/model/fused-graph/write-fused-decoder';
import type {
  DecoderWeightSet,
  MatrixWeight,
} from '../../../../../src-main/runtime/model/fused-graph/weight-set';
import { buildLlamaOnnx } from '../../../../../tools/onnx-llama/llama-graph';
import { hfWeightsOf, weightSetOf } from '../../../../../tools/onnx-llama/weight-set';
import { greedyDecode, kvLayoutOf, runStep } from '../../../../../tools/onnx-llama/ort-runner';
import { maxAbsDiff, samplePrompt, tinyConfig, tinyWeights } from '../../../tools/onnx-llama/tiny-model';

const config = tinyConfig();
const weights = tinyWeights(config);
const layout = kvLayoutOf(config);
const open = (bytes: Uint8Array) =>
  ort.InferenceSession.create(bytes, { graphOptimizationLevel: 'all', logSeverityLevel: 3 });
const prompt = samplePrompt(12, config.vocab_size);

describe('the fused decoder writer', () => {
  let naive: ort.InferenceSession;
  let fused: ort.InferenceSession;
  beforeAll(async () => {
    naive = await open(buildLlamaOnnx(config, weights));
    fused = await open(writeFusedDecoder(weightSetOf(config, weights)));
  });
  afterAll(async () => Promise.all([naive.release(), fused.release()]));

  it('gives the naive graph’s greedy tokens at fp32, and logits within float rounding', async () => {
    const expected = await greedyDecode(naive, layout, prompt, 16);
    const actual = await greedyDecode(fused, layout, prompt, 16);
    expect(actual.tokens).toEqual(expected.tokens);
    const worst = Math.max(
      ...actual.lastLogits.map((logits, i) => maxAbsDiff(logits, expected.lastLogits[i]!)),
    );
    console.log(`fused vs naive, max |logit diff| over 16 steps: ${worst.toExponential(2)}`);
    expect(worst).toBeLessThan(1e-4);
  });

  it('prefills in chunks (a multi-token step on a non-empty past) as it does in one', async () => {
    const whole = await greedyDecode(fused, layout, prompt, 6);
    const chunked = await greedyDecode(fused, layout, prompt, 6, 5);
    expect(chunked.tokens).toEqual(whole.tokens);
    expect(maxAbsDiff(chunked.lastLogits[0]!, whole.lastLogits[0]!)).toBeLessThan(1e-5);
  });

  it('decodes a batch of rows of different lengths (start-aligned, per-row seqlens) as each row alone', async () => {
    const prompts = [prompt, samplePrompt(5, config.vocab_size, 7)];
    const alone = await Promise.all(prompts.map((p) => greedyDecode(fused, layout, p, 2)));
    const pasts = await Promise.all(prompts.map((p) => prefillPast(fused, p)));
    const width = Math.max(...prompts.map((p) => p.length));
    const past: Record<string, ort.Tensor> = {};
    for (const name of Object.keys(pasts[0]!)) {
      const { numKvHeads, headDim } = layout;
      const data = new Float32Array(2 * numKvHeads * width * headDim);
      pasts.forEach((rowPast, row) => {
        const rowData = rowPast[name]!.data as Float32Array;
        const length = prompts[row]!.length;
        for (let head = 0; head < numKvHeads; head++)
          data.set(
            rowData.subarray(head * length * headDim, (head + 1) * length * headDim),
            (row * numKvHeads + head) * width * headDim,
          );
      });
      past[name] = new ort.Tensor('float32', data, [2, numKvHeads, width, headDim]);
    }
    const step = await runStep(fused, {
      inputIds: alone.map((run) => [run.tokens[0]!]),
      attentionMask: prompts.map((p) => [
        ...new Array<number>(p.length + 1).fill(1),
        ...new Array<number>(width - p.length).fill(0),
      ]),
      positionIds: prompts.map((p) => [p.length]),
      past,
    });
    const vocab = config.vocab_size;
    prompts.forEach((_, row) => {
      const logits = step.logits.subarray(row * vocab, (row + 1) * vocab);
      expect(maxAbsDiff(logits, alone[row]!.lastLogits[1]!)).toBeLessThan(1e-5);
    });
  });

  it('takes an attention_mask instead of the lengths when asked (onnxruntime-genai’s interface), with the same tokens', async () => {
    const masked = await open(
      writeFusedDecoder(weightSetOf(config, weights), { attentionInputs: 'attention-mask' }),
    );
    expect(masked.inputNames).toContain('attention_mask');
    expect(masked.inputNames).not.toContain('seqlens_k');
    const expected = await greedyDecode(fused, layout, prompt, 8);
    const actual = await greedyDecode(masked, layout, prompt, 8);
    expect(actual.tokens).toEqual(expected.tokens);
    expect(maxAbsDiff(actual.lastLogits[7]!, expected.lastLogits[7]!)).toBe(0);
    await masked.release();
  });

  it('runs ten nodes per layer and six around them once ONNX Runtime has folded its constants', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ff-fused-nodes-'));
    const optimized = join(dir, 'optimized.onnx');
    const bytes = writeFusedDecoder(weightSetOf(config, weights), { floatStorage: 'float16' });
    const session = await ort.InferenceSession.create(bytes, {
      graphOptimizationLevel: 'all',
      optimizedModelFilePath: optimized,
      logSeverityLevel: 3,
    });
    await session.release();
    const run = onnxProto.onnx.ModelProto.decode(readFileSync(optimized)).graph!.node!.map((n) => n.opType!);
    rmSync(dir, { recursive: true, force: true });
    const perLayer = [
      'SkipSimplifiedLayerNormalization',
      'MatMul',
      'GroupQueryAttention',
      'MatMul',
      'SkipSimplifiedLayerNormalization',
      'MatMul',
      'Split',
      'QuickGelu',
      'Mul',
      'MatMul',
    ];
    const layers = run.filter((op) => !['Gather', 'Neg', 'Unsqueeze', 'Slice'].includes(op));
    expect(layers.slice(0, 10)).toEqual(['SimplifiedLayerNormalization', ...perLayer.slice(1)]);
    expect(layers.slice(10, 20)).toEqual(perLayer);
    expect(layers.slice(20)).toEqual(['SkipSimplifiedLayerNormalization', 'MatMul']);
    expect(run.length).toBe(10 * config.num_hidden_layers + 6);
  });
});

/** A prompt's K/V from one fused forward (rows of exactly the prompt's length). */
async function prefillPast(
  session: ort.InferenceSession,
  ids: number[],
): Promise<Record<string, ort.Tensor>> {
  const past: Record<string, ort.Tensor> = {};
  for (let layer = 0; layer < layout.numLayers; layer++)
    for (const kind of ['key', 'value'])
      past[`past_key_values.${layer}.${kind}`] = new ort.Tensor('float32', new Float32Array(0), [
        1,
        layout.numKvHeads,
        0,
        layout.headDim,
      ]);
  const step = await runStep(session, {
    inputIds: [ids],
    attentionMask: [ids.map(() => 1)],
    positionIds: [ids.map((_, i) => i)],
    past,
  });
  return step.nextPast;
}

/** Block weights as the float weights they stand for (the oracle of a quantized graph). */
function dequantizedSet(set: DecoderWeightSet): DecoderWeightSet {
  const floatOf = (weight: MatrixWeight): MatrixWeight => {
    if (weight.kind === 'float') return weight;
    const numBlocks = Math.ceil(weight.numCols / weight.blockSize);
    const data = blockDequantize(
      { ...weight, numBlocks, blobBytes: (weight.blockSize * weight.bits) / 8 },
      weight.numRows,
      weight.numCols,
      weight.bits,
    );
    return {
      kind: 'float',
      dtype: 'float32',
      data,
      shape: [weight.numRows, weight.numCols],
      order: 'out-in',
    };
  };
  return {
    ...set,
    embedding: floatOf(set.embedding),
    lmHead: set.lmHead && floatOf(set.lmHead),
    layers: set.layers.map((layer) => ({
      ...layer,
      q: floatOf(layer.q),
      k: floatOf(layer.k),
      v: floatOf(layer.v),
      o: floatOf(layer.o),
      gate: floatOf(layer.gate),
      up: floatOf(layer.up),
      down: floatOf(layer.down),
    })),
  };
}

describe('the fused writer on block-quantized weights', () => {
  for (const bits of [4, 8] as const) {
    it(`q${bits}: packed MatMulNBits, GatherBlockQuantized and the tied head reading its bytes compute what the dequantized weights do`, async () => {
      const { set, keptFloat } = quantizeWeightSet(weightSetOf(config, weights), {
        bits,
        blockSize: 32,
        scheme: 'symmetric',
        isQuantizingEmbeddings: true,
      });
      expect(keptFloat).toEqual([]);
      const quantized = await open(writeFusedDecoder(set, { accuracyLevel: 1 }));
      const oracle = await open(buildLlamaOnnx(config, hfWeightsOf(dequantizedSet(set))));
      const expected = await greedyDecode(oracle, layout, prompt, 4);
      const actual = await greedyDecode(quantized, layout, prompt, 4);
      const worst = Math.max(...actual.lastLogits.map((l, i) => maxAbsDiff(l, expected.lastLogits[i]!)));
      console.log(`q${bits} fused vs dequantized naive, max |logit diff|: ${worst.toExponential(2)}`);
      expect(worst).toBeLessThan(2e-3);
      await Promise.all([quantized.release(), oracle.release()]);
    });
  }

  it('runs q/k/v apart when they cannot share one packed weight (float q, 8-bit k/v), and keeps an asymmetric embedding float with its head quantized apart', async () => {
    const { set, keptFloat } = quantizeWeightSet(weightSetOf(config, weights), {
      bits: 8,
      blockSize: 16,
      scheme: 'asymmetric',
      isQuantizingEmbeddings: true,
    });
    expect(keptFloat).toEqual([
      { weight: 'embedding', reason: 'GatherBlockQuantized is written symmetric only' },
    ]);
    expect(set.lmHead?.kind).toBe('blocks');
    const float = weightSetOf(config, weights);
    const mixed = { ...set, layers: set.layers.map((layer, i) => ({ ...layer, q: float.layers[i]!.q })) };
    const bytes = writeFusedDecoder(mixed, { accuracyLevel: 1 });
    const ops = onnxProto.onnx.ModelProto.decode(bytes).graph!.node!.map((n) => n.opType);
    expect(ops.filter((op) => op === 'MatMulNBits')).toHaveLength(2 * 5 + 1); // k, v, o, gate_up, down per layer; the head
    const quantized = await open(bytes);
    const untied = { ...config, tie_word_embeddings: false };
    const oracle = await open(buildLlamaOnnx(untied, hfWeightsOf(dequantizedSet(mixed))));
    const expected = await greedyDecode(oracle, layout, prompt, 3);
    const actual = await greedyDecode(quantized, layout, prompt, 3);
    expect(maxAbsDiff(actual.lastLogits[0]!, expected.lastLogits[0]!)).toBeLessThan(2e-3);
    await Promise.all([quantized.release(), oracle.release()]);
  });
});

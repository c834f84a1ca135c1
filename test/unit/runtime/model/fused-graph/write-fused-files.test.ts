import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import onnxProto from 'onnx-proto';
import { afterAll, describe, expect, it } from 'vitest';
import { WeightSetError } from '../../../../../src-main/runtime/model/fused-graph/check-weight-set';
import { EXTERNAL_DATA_ALIGNMENT } from '../../../../../src-main/runtime/model/fused-graph/external-data';
import { FUSED_OPS, fusedIoOf } from '../../../../../src-main/runtime/model/fused-graph/fused-io';
import { quantizeWeightSet } from '../../../../../src-main/runtime/model/fused-graph/quantize-weight-set';
import { streamOf } from '../../../../../src-main/runtime/model/fused-graph/weight-set';
import {
  writeFusedDecoder,
  writeFusedDecoderFiles,
} from '../../../../../src-main/runtime/model/fused-graph/write-fused-decoder';
import type {
  DecoderWeightSet,
  StreamedWeightSet,
} from '../../../../../src-main/runtime/model/fused-graph/weight-set';
import { weightSetOf } from '../../../../../tools/onnx-llama/weight-set';
import { greedyDecode, kvLayoutOf } from '../../../../../tools/onnx-llama/ort-runner';
import { maxAbsDiff, samplePrompt, tinyConfig, tinyWeights } from '../../../tools/onnx-llama/tiny-model';

const config = tinyConfig();
const layout = kvLayoutOf(config);
const prompt = samplePrompt(12, config.vocab_size);
const scratch = mkdtempSync(path.join(os.tmpdir(), 'ff-fused-files-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const q4 = (): DecoderWeightSet =>
  quantizeWeightSet(weightSetOf(config, tinyWeights(config)), {
    bits: 4,
    blockSize: 32,
    scheme: 'symmetric',
    isQuantizingEmbeddings: true,
  }).set;

/** A stream that records the order parts are asked for. */
function recorded(set: DecoderWeightSet, calls: string[]): StreamedWeightSet {
  const inner = streamOf(set);
  return {
    dims: set.dims,
    embedding: () => (calls.push('embedding'), inner.embedding()),
    layer: (i) => (calls.push(`layer ${i}`), inner.layer(i)),
    finalNorm: () => (calls.push('finalNorm'), inner.finalNorm()),
    lmHead: () => (calls.push('lmHead'), inner.lmHead()),
  };
}

describe('the fused writer with external data, weights streamed', () => {
  it('writes the in-memory graph’s computation with its weights in a data file beside it, each part asked for once in order', async () => {
    const set = q4();
    const calls: string[] = [];
    const files = {
      onnxPath: path.join(scratch, 'model.onnx'),
      dataPath: path.join(scratch, 'model.onnx.data'),
    };
    const sizes = writeFusedDecoderFiles(recorded(set, calls), files, { accuracyLevel: 1 });
    expect(calls).toEqual(['embedding', ...set.layers.map((_, i) => `layer ${i}`), 'finalNorm', 'lmHead']);
    expect(sizes).toEqual({
      onnxBytes: statSync(files.onnxPath).size,
      dataBytes: statSync(files.dataPath).size,
    });
    const inline = writeFusedDecoder(set, { accuracyLevel: 1 });
    expect(sizes.onnxBytes).toBeLessThan(inline.byteLength / 4);
    const graph = onnxProto.onnx.ModelProto.decode(readFileSync(files.onnxPath)).graph!;
    const offsets = graph.initializer!.flatMap((t) =>
      (t.externalData ?? []).filter((e) => e.key === 'offset').map((e) => Number(e.value)),
    );
    expect(offsets.length).toBeGreaterThan(set.layers.length * 3);
    expect(offsets.every((offset) => offset % EXTERNAL_DATA_ALIGNMENT === 0)).toBe(true);
    const fromFiles = await ort.InferenceSession.create(files.onnxPath);
    const fromBytes = await ort.InferenceSession.create(inline);
    const expected = await greedyDecode(fromBytes, layout, prompt, 4);
    const actual = await greedyDecode(fromFiles, layout, prompt, 4);
    expect(actual.tokens).toEqual(expected.tokens);
    expect(maxAbsDiff(actual.lastLogits[0]!, expected.lastLogits[0]!)).toBe(0);
    await Promise.all([fromFiles.release(), fromBytes.release()]);
  });

  it('refuses a layer that does not fit the dims when it arrives, naming it', () => {
    const set = q4();
    const broken = { ...set, layers: set.layers.map((l, i) => (i === 1 ? { ...l, v: l.q } : l)) };
    const files = { onnxPath: path.join(scratch, 'bad.onnx'), dataPath: path.join(scratch, 'bad.onnx.data') };
    expect(() => writeFusedDecoderFiles(streamOf(broken), files)).toThrow(WeightSetError);
    expect(() => writeFusedDecoderFiles(streamOf(broken), files)).toThrow(/^layers\.1\.v: is \d+ × \d+/);
  });
});

describe('the fused graph’s declared signature', () => {
  it('is what the writer writes: the same inputs and outputs, and no operator outside FUSED_OPS', () => {
    for (const set of [weightSetOf(config, tinyWeights(config)), q4()]) {
      const graph = onnxProto.onnx.ModelProto.decode(writeFusedDecoder(set)).graph!;
      const declared = fusedIoOf(set.dims);
      const names = (list: Array<{ name?: string | null }>) => list.map((t) => t.name);
      expect(names(graph.input!)).toEqual(names(declared.inputs));
      expect(names(graph.output!)).toEqual(names(declared.outputs));
      const ops = new Set(graph.node!.map((n) => `${n.domain ?? ''}:${n.opType}`));
      expect([...ops].filter((op) => !(FUSED_OPS as readonly string[]).includes(op))).toEqual([]);
    }
  });
});

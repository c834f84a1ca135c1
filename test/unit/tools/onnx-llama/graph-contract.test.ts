import onnxProto from 'onnx-proto';
import type { onnx as Onnx } from 'onnx-proto';
import { describe, expect, it } from 'vitest';
import { buildLlamaOnnx, LLAMA_OPSET } from '../../../../tools/onnx-llama/llama-graph';
import { emptyPast, kvLayoutOf, runStep } from '../../../../tools/onnx-llama/ort-runner';
import { openSession, tinyConfig, tinyWeights } from './tiny-model';

const { onnx } = onnxProto;
const FLOAT = 1;
const INT64 = 7;

type Signature = Array<[string, number, Array<string | number>]>;

function signature(values: Onnx.IValueInfoProto[]): Signature {
  return values.map((v) => [
    v.name!,
    v.type!.tensorType!.elemType!,
    v.type!.tensorType!.shape!.dim!.map((d) => (d.dimParam ? d.dimParam : Number(d.dimValue))),
  ]);
}

describe('graph contract (HF ONNX layout)', () => {
  const config = tinyConfig();
  const weights = tinyWeights(config);
  const model = onnx.ModelProto.decode(buildLlamaOnnx(config, weights));
  const graph = model.graph as Onnx.GraphProto;

  it('declares exactly input_ids, attention_mask, position_ids, past_key_values.N.key|value with HF dtypes and symbolic dims', () => {
    const past = (layer: number, kind: string): Signature[number] => [
      `past_key_values.${layer}.${kind}`,
      FLOAT,
      ['batch_size', 2, 'past_sequence_length', 16],
    ];
    expect(signature(graph.input)).toEqual([
      ['input_ids', INT64, ['batch_size', 'sequence_length']],
      ['attention_mask', INT64, ['batch_size', 'total_sequence_length']],
      ['position_ids', INT64, ['batch_size', 'sequence_length']],
      past(0, 'key'),
      past(0, 'value'),
      past(1, 'key'),
      past(1, 'value'),
    ]);
  });

  it('declares exactly logits and present.N.key|value with total_sequence_length', () => {
    const present = (layer: number, kind: string): Signature[number] => [
      `present.${layer}.${kind}`,
      FLOAT,
      ['batch_size', 2, 'total_sequence_length', 16],
    ];
    expect(signature(graph.output)).toEqual([
      ['logits', FLOAT, ['batch_size', 'sequence_length', 300]],
      present(0, 'key'),
      present(0, 'value'),
      present(1, 'key'),
      present(1, 'value'),
    ]);
  });

  it('uses only the default-domain opset 17 (no com.microsoft contrib ops)', () => {
    expect(model.opsetImport.map((o) => [o.domain ?? '', Number(o.version)])).toEqual([['', LLAMA_OPSET]]);
    expect(graph.node.filter((n) => (n.domain ?? '') !== '')).toEqual([]);
  });

  it('stores projections transposed ([in, out]) so the graph does plain MatMul', () => {
    const q = graph.initializer.find((t) => t.name === 'model.layers.0.self_attn.q_proj.weight.transposed');
    const gate = graph.initializer.find((t) => t.name === 'model.layers.0.mlp.gate_proj.weight.transposed');
    expect(q?.dims?.map(Number)).toEqual([64, 64]);
    expect(gate?.dims?.map(Number)).toEqual([64, 128]);
  });

  it('accepts an empty past (length-0 dim) and returns logits [B,S,V] and present [B,NKV,S,D]', async () => {
    const session = await openSession(config, weights);
    expect(session.inputNames).toEqual(graph.input.map((v) => v.name));
    expect(session.outputNames).toEqual(graph.output.map((v) => v.name));
    const step = await runStep(session, {
      inputIds: [
        [5, 6, 7],
        [8, 9, 10],
      ],
      attentionMask: [
        [1, 1, 1],
        [1, 1, 1],
      ],
      positionIds: [
        [0, 1, 2],
        [0, 1, 2],
      ],
      past: emptyPast(kvLayoutOf(config), 2),
    });
    expect(step.logitsDims).toEqual([2, 3, 300]);
    expect(step.logits.every(Number.isFinite)).toBe(true);
    expect(Object.keys(step.nextPast)).toHaveLength(4);
    for (const tensor of Object.values(step.nextPast)) expect(tensor.dims).toEqual([2, 2, 3, 16]);
    await session.release();
  });
});

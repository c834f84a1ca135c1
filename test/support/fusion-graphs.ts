import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import onnxProto from 'onnx-proto';
import type { onnx as Onnx } from 'onnx-proto';
import { makeLlamaConfig, TINY_SHAPE } from '../../tools/onnx-llama/config';
import { randomLlamaWeights } from '../../tools/onnx-llama/random-weights';
import { weightSetOf } from '../../tools/onnx-llama/weight-set';
import { LAYOUTS, writeLayoutModel } from '../../tools/onnx-llama/layouts';
import type { LayoutName } from '../../tools/onnx-llama/layouts';
import { quantizeModelFolder, QUANTIZE_DEFAULTS } from '../../tools/onnx-llama/quantize/quantize-model';
import type { DecoderWeightSet } from '../../src-main/runtime/model/fused-graph/weight-set';
import { shapeOf } from '../../src-main/runtime/model/config';
import type { RecognizeHints } from '../../src-main/runtime/model/fuse-at-load/recognize';
import type { ExternalBytes } from '../../src-main/runtime/model/onnx-graph/tensor-view';
import { randomModelsDir } from './models';

const { onnx } = onnxProto;

/** The layout models' seed (their weights: `expectedWeightSet`). */
export const FUSION_SEED = 5;

/** A graph to fuse: its file, bytes, external data and hints, as a slot's load would have them. */
export interface LoadedGraph {
  name: string;
  dir: string;
  file: string;
  bytes: Uint8Array;
  externalData: ExternalBytes[];
  hints: RecognizeHints;
}

/** Reads `<dir>/<file>`, its external data files beside it, and the folder's config.json. */
export function loadGraph(name: string, dir: string, file: string): LoadedGraph {
  const full = path.join(dir, file);
  const folder = path.dirname(full);
  const externalData = readdirSync(folder)
    .filter((entry) => entry.startsWith(`${path.basename(file)}_data`))
    .map((entry) => ({ path: entry, data: readFileSync(path.join(folder, entry)) }));
  const config = JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
  return {
    name,
    dir,
    file,
    bytes: readFileSync(full),
    externalData,
    hints: { shape: shapeOf(config), config },
  };
}

/**
 * Every naive layout of tools/onnx-llama (tiny shape, seed FUSION_SEED) and the quantize command's
 * variants of the plain one (q4 and q8 symmetric, q4 asymmetric), written under `root` once.
 */
export function naiveFixtures(root: string): LoadedGraph[] {
  const graphs: LoadedGraph[] = [];
  for (const layout of Object.keys(LAYOUTS) as LayoutName[]) {
    const dir = path.join(root, layout);
    if (!existsSync(dir)) writeLayoutModel({ layout, outDir: dir, seed: FUSION_SEED });
    graphs.push(loadGraph(layout, dir, LAYOUTS[layout].onnxFile));
  }
  const plain = path.join(root, 'plain');
  const asymmetric = path.join(root, 'plain-asymmetric');
  if (!existsSync(asymmetric)) cpSync(plain, asymmetric, { recursive: true });
  const variants = [
    { name: 'q4', dir: plain, bits: 4, scheme: 'symmetric' },
    { name: 'q8', dir: plain, bits: 8, scheme: 'symmetric' },
    { name: 'q4-asymmetric', dir: asymmetric, bits: 4, scheme: 'asymmetric' },
  ] as const;
  for (const { name, dir, bits, scheme } of variants) {
    const file = `onnx/model_q${bits}.onnx`;
    if (!existsSync(path.join(dir, file)))
      quantizeModelFolder({ ...QUANTIZE_DEFAULTS, modelDir: dir, bits, scheme, form: 'naive' });
    graphs.push(loadGraph(name, dir, file));
  }
  return graphs;
}

/** The weights a layout model was written from, as the fused writer's weight set. */
export function expectedWeightSet(layout: LayoutName): DecoderWeightSet {
  const config = makeLlamaConfig({ ...TINY_SHAPE, ...(LAYOUTS[layout] as { shape?: object }).shape });
  return weightSetOf(config, randomLlamaWeights(config, { seed: FUSION_SEED, std: 0.3 }));
}

/**
 * A model folder at `outDir`: the tiny float32 naive test model (randomModelsDir, the bundled
 * model's tokenizer) with its graph changed by `edit`, for a runtime to load as a user's model.
 */
export function writeEditedModel(outDir: string, edit: (graph: Onnx.GraphProto) => void): string {
  const source = path.join(randomModelsDir([EDITABLE_MODEL]), EDITABLE_MODEL);
  cpSync(source, outDir, { recursive: true });
  const file = path.join(outDir, 'onnx', 'model.onnx');
  writeFileSync(file, editGraph(readFileSync(file), edit));
  return outDir;
}

/** The random test model writeEditedModel copies (hidden size 64, float32 weights). */
export const EDITABLE_MODEL = 'fusion-float32';

/** The model with its graph changed by `edit` (a test's hand-made variant of an export). */
export function editGraph(bytes: Uint8Array, edit: (graph: Onnx.GraphProto) => void): Uint8Array {
  const model = onnx.ModelProto.decode(bytes);
  edit(model.graph as Onnx.GraphProto);
  return onnx.ModelProto.encode(model).finish();
}

const floats = (name: string, dims: number[], values: number[]): Onnx.ITensorProto => ({
  name,
  dataType: 1,
  dims,
  rawData: new Uint8Array(Float32Array.from(values).buffer),
});

function nodeWhere(graph: Onnx.GraphProto, test: (node: Onnx.INodeProto) => boolean): Onnx.INodeProto {
  const node = graph.node.find(test);
  if (!node) throw new Error('the graph has no such node');
  return node;
}

/** Renames what `node` writes and adds `opType(renamed, …rest)` writing the old name. */
function insertAfter(graph: Onnx.GraphProto, node: Onnx.INodeProto, opType: string, rest: string[]): void {
  const output = node.output![0]!;
  node.output![0] = `${output}/before_${opType}`;
  graph.node.push({
    opType,
    input: [node.output![0]!, ...rest],
    output: [output],
    name: `${output}/${opType}`,
  });
}

/**
 * A bias added after the MatMul whose weight's name holds `weightPart` (e.g.
 * `layers.0.self_attn.q_proj`): `width` values, each `valueAt(i)` (0.05 unless given).
 */
export function withProjectionBias(weightPart: string, width: number, valueAt = (_: number) => 0.05) {
  return (graph: Onnx.GraphProto): void => {
    const matmul = nodeWhere(
      graph,
      (n) => n.opType === 'MatMul' && (n.input?.[1] ?? '').includes(weightPart),
    );
    const values = Array.from({ length: width }, (_, i) => valueAt(i));
    graph.initializer.push(floats(`${weightPart}.bias`, [width], values));
    insertAfter(graph, matmul, 'Add', [`${weightPart}.bias`]);
  };
}

/**
 * Biases after the q, k and v projections of the tiny test models' two layers (a Qwen2-style
 * export: q 64 wide, k and v 32), each value 0.5·sin(i + 1), large enough to change the logits.
 */
export function withQkvBiases(graph: Onnx.GraphProto): void {
  for (const layer of [0, 1])
    for (const [role, width] of [
      ['q', 64],
      ['k', 32],
      ['v', 32],
    ] as const)
      withProjectionBias(
        `layers.${layer}.self_attn.${role}_proj`,
        width,
        (i) => 0.5 * Math.sin(i + 1),
      )(graph);
}

/** Layer 0's input RMSNorm replaced by a LayerNormalization (mean-subtracting, with a bias). */
export function withLayerNorm(hiddenSize: number) {
  return (graph: Onnx.GraphProto): void => {
    const gamma = 'model.layers.0.input_layernorm.weight';
    const mul = nodeWhere(graph, (n) => n.opType === 'Mul' && (n.input ?? []).includes(gamma));
    const normalized = mul.input!.find((input) => input !== gamma)!;
    const div = nodeWhere(graph, (n) => n.output?.[0] === normalized);
    graph.initializer.push(floats('ln.beta', [hiddenSize], new Array<number>(hiddenSize).fill(0)));
    Object.assign(mul, {
      opType: 'LayerNormalization',
      input: [div.input![0]!, gamma, 'ln.beta'],
      attribute: [
        { name: 'axis', type: 2, i: -1 },
        { name: 'epsilon', type: 1, f: 1e-5 },
      ],
    });
  };
}

/** Layer 0's input norm weight used as 1 + weight (Gemma's norm). */
export function withGemmaNorm(graph: Onnx.GraphProto): void {
  const gamma = 'model.layers.0.input_layernorm.weight';
  const mul = nodeWhere(graph, (n) => n.opType === 'Mul' && (n.input ?? []).includes(gamma));
  graph.initializer.push(floats('gemma.one', [], [1]));
  graph.node.unshift({
    opType: 'Add',
    input: [gamma, 'gemma.one'],
    output: ['gemma.gamma'],
    name: 'gemma_add',
  });
  mul.input = mul.input!.map((input) => (input === gamma ? 'gemma.gamma' : input));
}

/** The embedding's output multiplied by √hidden before layer 0 (Gemma's scaled embedding). */
export function withScaledEmbedding(hiddenSize: number) {
  return (graph: Onnx.GraphProto): void => {
    const gather = nodeWhere(graph, (n) => n.opType === 'Gather' && n.input?.[1] === 'input_ids');
    graph.initializer.push(floats('embed.scale', [], [Math.sqrt(hiddenSize)]));
    insertAfter(graph, gather, 'Mul', ['embed.scale']);
  };
}

/** Every MLP's Sigmoid turned into Tanh: x·tanh(x) is not SiLU. */
export function withTanhActivation(graph: Onnx.GraphProto): void {
  for (const node of graph.node) if (node.opType === 'Sigmoid') node.opType = 'Tanh';
}

/**
 * A mask that also hides keys more than `window` positions back (a sliding window the config
 * does not declare): recognition cannot see it, the check must.
 */
export function withHiddenSlidingWindow(window: number) {
  return (graph: Onnx.GraphProto): void => {
    const causal = nodeWhere(graph, (n) => n.opType === 'LessOrEqual');
    const [keyIndex = '', queryColumn = ''] = causal.input!;
    graph.initializer.push({
      name: 'window.size',
      dataType: 7,
      dims: [],
      rawData: new Uint8Array(BigInt64Array.of(BigInt(window)).buffer),
    });
    graph.node.push(
      { opType: 'Sub', input: [queryColumn, 'window.size'], output: ['window.low'], name: 'window_sub' },
      {
        opType: 'Greater',
        input: [keyIndex, 'window.low'],
        output: ['window.inside'],
        name: 'window_greater',
      },
    );
    insertAfter(graph, causal, 'And', ['window.inside']);
  };
}

import { checkWeightSet, WeightSetError } from '../fused-graph/check-weight-set';
import type {
  DecoderDims,
  DecoderLayerWeights,
  DecoderWeightSet,
  FloatWeight,
  MatrixWeight,
} from '../fused-graph/weight-set';
import { readModelView } from '../onnx-graph/graph-view';
import type { GraphView, ModelView } from '../onnx-graph/graph-view';
import type { ExternalBytes } from '../onnx-graph/tensor-view';
import type { ModelConfig, ModelShape } from '../config';
import { isContribAttention } from './attention';
import type { AttentionMatch } from './attention';
import { walkDecoder } from './decoder-walk';
import type { DecoderMatch } from './decoder-walk';
import { crossCheckNames } from './name-check';
import { expectFor, FusionRefused } from './refusal';
import { ropeParamsOf } from './rope-params';
import { embeddingAt, outIn } from './weights';
import type { FoundWeight, Projection } from './weights';
import { Walker } from './walker';
import { GRAPH_IO, pastOf } from '../graph-io-names';

/** What the recognizer is told besides the graph: config.json and the geometry read from it. */
export interface RecognizeHints {
  shape: ModelShape;
  config: ModelConfig;
}

/**
 * The recognizer's answer: a weight set the fused writer takes (with the MatMulNBits accuracy
 * level the graph used, and whether its weights and K/V are all float32, so the fused graph must
 * give the same greedy ids); a graph that is already fused; or the part that did not match and why.
 */
export type Recognition =
  | { kind: 'fusable'; set: DecoderWeightSet; accuracyLevel: 0 | 1 | 2 | 3 | 4; isExact: boolean }
  | { kind: 'already-fused'; reason: string }
  | { kind: 'refused'; part: string; reason: string };

/** ONNX Runtime's GroupQueryAttention rotates only head sizes that are a multiple of this. */
const GQA_HEAD_MULTIPLE = 16;

/**
 * Decides whether a loaded decoder graph is a llama-family decoder the fused writer can express,
 * by following its dataflow from the logits back to input_ids (never by node names, which only
 * cross-check), and extracts its weights as they are stored (MatMulNBits blocks stay blocks).
 */
export function recognizeDecoder(
  bytes: Uint8Array,
  externalData: readonly ExternalBytes[],
  hints: RecognizeHints,
): Recognition {
  let model: ModelView;
  try {
    model = readModelView(bytes, externalData);
  } catch (error) {
    return { kind: 'refused', part: 'graph', reason: `it could not be read: ${(error as Error).message}` };
  }
  const fused = contribAttentionOf(model.graph);
  if (fused) return { kind: 'already-fused', reason: `it already runs ONNX Runtime's ${fused}` };
  try {
    return fusable(model.graph, hints);
  } catch (error) {
    if (error instanceof FusionRefused) return { kind: 'refused', part: error.part, reason: error.why };
    if (error instanceof WeightSetError)
      return { kind: 'refused', part: error.weight, reason: error.message };
    throw error;
  }
}

/** The contrib attention op anywhere in the graph (subgraphs included), or null. */
function contribAttentionOf(graph: GraphView): string | null {
  for (const node of graph.nodes) {
    if (isContribAttention(node)) return node.opType;
    for (const branch of ['then_branch', 'else_branch', 'body']) {
      const sub = graph.subgraph(node, branch);
      const found = sub ? contribAttentionOf(sub) : null;
      if (found) return found;
    }
  }
  return null;
}

/**
 * The graph that computes with a past: the main graph, or a merged decoder's with-past branch
 * (the If on use_cache_branch), with the name that branch gives the logits.
 */
function bodyOf(graph: GraphView): { body: GraphView; logits: string } {
  const walker = new Walker(graph);
  const node = walker.producer(GRAPH_IO.logits);
  if (node?.opType !== 'If') return { body: graph, logits: GRAPH_IO.logits };
  expectFor(
    'graph',
    walker.skip(node.inputs[0]!) === 'use_cache_branch',
    'its logits come from an If that is not on use_cache_branch',
  );
  const body = graph.subgraph(node, 'then_branch');
  const index = node.outputs.indexOf(walker.skip(GRAPH_IO.logits));
  expectFor(
    'graph',
    body !== null && body.outputs[index] !== undefined,
    'its use_cache_branch If has no with-past branch',
  );
  return { body, logits: body.outputs[index]!.name };
}

function fusable(graph: GraphView, hints: RecognizeHints): Recognition {
  checkConfig(hints);
  const pastKeys = graph.inputs.filter((input) => pastOf(input.name)?.kind === 'key');
  const pastDims = pastKeys[0]?.dims ?? [];
  const headDim = typeof pastDims[3] === 'number' ? pastDims[3] : hints.shape.headDim;
  expectFor(
    'self_attn',
    headDim % GQA_HEAD_MULTIPLE === 0,
    `head dim ${headDim} is not a multiple of ${GQA_HEAD_MULTIPLE}, which ONNX Runtime's GroupQueryAttention needs to rotate`,
  );
  const { body, logits } = bodyOf(graph);
  const walker = new Walker(body);
  const match = walkDecoder(walker, logits, pastKeys.length, headDim);
  crossCheckNames(match);
  const embedding = embeddingAt(walker, match.embedded);
  const set = weightSetOf(match, embedding, headDim, hints);
  checkWeightSet(set);
  const isFloat32 = (weight: MatrixWeight) => weight.kind === 'float' && weight.dtype === 'float32';
  const matrices = [
    set.embedding,
    set.lmHead,
    ...set.layers.flatMap((l) => [l.q, l.k, l.v, l.o, l.gate, l.up, l.down]),
  ];
  const logitsOutput = graph.outputs.find((o) => o.name === GRAPH_IO.logits);
  const isExact =
    matrices.every((m) => m === null || isFloat32(m)) &&
    pastKeys.every((p) => p.elemType === 'float32') &&
    logitsOutput?.elemType === 'float32';
  return { kind: 'fusable', set, accuracyLevel: accuracyLevelOf(match), isExact };
}

/** Refuses what config.json says and the graph cannot show: a sliding window shorter than the context. */
function checkConfig({ config, shape }: RecognizeHints): void {
  const window = config['sliding_window'];
  const isOn = config['use_sliding_window'] !== false;
  if (isOn && typeof window === 'number' && window < shape.maxPositions)
    throw new FusionRefused(
      'self_attn',
      `it attends over a sliding window of ${window} tokens (config.json sliding_window), which the fused attention does not limit`,
    );
}

function weightSetOf(
  match: DecoderMatch,
  embedding: FoundWeight & { scalesKey: Float32Array | null },
  headDim: number,
  hints: RecognizeHints,
): DecoderWeightSet {
  const [first] = match.layers;
  expectFor('layers', first !== undefined, 'the graph has no decoder layers');
  const isTied = isTiedHead(match.head, embedding);
  const norms = [match.finalNorm, ...match.layers.flatMap((l) => [l.inputNorm, l.postNorm])];
  const eps = match.finalNorm.eps;
  expectFor(
    'layers',
    norms.every((n) => Math.fround(n.eps) === Math.fround(eps)),
    'its norms use different epsilons',
  );
  const angles = JSON.stringify(first.attention.angles, (_, v: unknown) =>
    v instanceof Float32Array ? Array.from(v) : v,
  );
  const sameAngles = match.layers.every(
    (l) =>
      JSON.stringify(l.attention.angles, (_, v: unknown) =>
        v instanceof Float32Array ? Array.from(v) : v,
      ) === angles,
  );
  expectFor('rotary', sameAngles, 'its layers rotate by different angles');
  const [vocabSize, hiddenSize] = outIn(embedding.weight);
  const numHeads = outIn(first.attention.q.weight)[0] / headDim;
  const numKvHeads = outIn(first.attention.k.weight)[0] / headDim;
  const configHeads = hints.config['num_attention_heads'];
  expectFor(
    'self_attn',
    typeof configHeads !== 'number' || configHeads === numHeads,
    `its q projection makes ${numHeads} heads of ${headDim}; config.json says ${String(configHeads)}`,
  );
  expectFor(
    'self_attn',
    numKvHeads === hints.shape.numKvHeads,
    `its k projection makes ${numKvHeads} K/V heads; config.json says ${hints.shape.numKvHeads}`,
  );
  const dims: DecoderDims = {
    numLayers: match.layers.length,
    hiddenSize,
    numHeads,
    numKvHeads,
    headDim,
    intermediateSize: outIn(first.mlp.gate.weight)[0],
    vocabSize,
    ...ropeParamsOf(first.attention.angles, headDim, 'rotary'),
    rmsNormEps: epsOf(eps, hints.config),
    isTiedEmbedding: isTied,
    contextLength: hints.shape.maxPositions,
  };
  const layers: DecoderLayerWeights[] = match.layers.map(({ inputNorm, attention, postNorm, mlp }) => ({
    inputNorm: inputNorm.gamma,
    q: attention.q.weight,
    k: attention.k.weight,
    v: attention.v.weight,
    o: attention.o.weight,
    postAttentionNorm: postNorm.gamma,
    gate: mlp.gate.weight,
    up: mlp.up.weight,
    down: mlp.down.weight,
    ...qkvBiasOf(attention),
  }));
  return {
    dims,
    embedding: embedding.weight,
    layers,
    finalNorm: match.finalNorm.gamma,
    lmHead: isTied ? null : match.head.weight,
  };
}

/** The q/k/v biases when the graph adds any (a projection it adds none to gets zeros), else nothing. */
function qkvBiasOf({ q, k, v }: AttentionMatch): Pick<DecoderLayerWeights, 'qkvBias'> {
  if (!q.bias && !k.bias && !v.bias) return {};
  const zeros = (projection: Projection): FloatWeight => {
    const width = outIn(projection.weight)[0];
    return {
      kind: 'float',
      dtype: 'float32',
      data: new Float32Array(width),
      shape: [width],
      order: 'out-in',
    };
  };
  return { qkvBias: { q: q.bias ?? zeros(q), k: k.bias ?? zeros(k), v: v.bias ?? zeros(v) } };
}

/** The graph's epsilon, spelled as config.json's rms_norm_eps when the two agree in float32. */
function epsOf(eps: number, config: ModelConfig): number {
  const declared = config['rms_norm_eps'];
  return typeof declared === 'number' && Math.fround(declared) === Math.fround(eps) ? declared : eps;
}

/** Whether the head reads the embedding's own stored values (one initializer; for blocks, equal scales too). */
function isTiedHead(head: FoundWeight, embedding: FoundWeight & { scalesKey: Float32Array | null }): boolean {
  if (head.source !== embedding.source) return false;
  if (head.weight.kind === 'float') return head.weight.order === 'out-in';
  const scales = embedding.scalesKey;
  return (
    scales !== null &&
    head.weight.scales.length === scales.length &&
    head.weight.scales.every((s, i) => s === scales[i])
  );
}

/** The MatMulNBits accuracy level most projections use (4, int8 activations, when none is quantized). */
function accuracyLevelOf(match: DecoderMatch): 0 | 1 | 2 | 3 | 4 {
  const counts = new Map<number, number>();
  const projections = [
    match.head,
    ...match.layers.flatMap((l) => [
      l.attention.q,
      l.attention.k,
      l.attention.v,
      l.attention.o,
      l.mlp.gate,
      l.mlp.up,
      l.mlp.down,
    ]),
  ];
  for (const { accuracyLevel } of projections)
    if (accuracyLevel !== null) counts.set(accuracyLevel, (counts.get(accuracyLevel) ?? 0) + 1);
  const [best] = [...counts].sort((a, b) => b[1] - a[1]);
  const level = best?.[0] ?? 4;
  return (level >= 0 && level <= 4 ? level : 4) as 0 | 1 | 2 | 3 | 4;
}

/**
 * Gives a decoder graph without `num_logits_to_keep` that input (Hugging Face semantics: keep the
 * last k positions' logits, 0 keeps all). Sampling needs one row; a graph that returns all of
 * them makes each prefill compute and copy [rows, tokens, vocab] floats (16 MB for 128 tokens of
 * a 32k vocabulary) that the slot worker then has to collect, on the first token's path.
 */
import { MemoryBytes, fieldsOf } from './proto-reader';
import type { FieldSpan } from './proto-reader';
import { messageField, textField } from './proto-writer';
import { defaultOpsetOf, nodesAtAnyDepth, readModelView } from './graph-view';
import { int64InitializerField, nodeField, valueInfoField, withGraph } from './graph-writes';
import type { GraphView, ModelView, NodeView } from './graph-view';
import { GRAPH_IO } from '../graph-io-names';

/** The input a rewritten graph takes: int64 scalar, how many last positions' logits to compute. */
export const KEEP_INPUT = GRAPH_IO.numLogitsToKeep;
/** Slice with its starts/ends/axes as inputs (opset 10) and int64 Greater (opset 9). */
const MIN_OPSET = 11;
const INT64 = 7;
const PREFIX = 'first_frame_keep/';

/**
 * Where the slice went: before the language-model head (the head then runs on the kept rows
 * only), or on the logits themselves (the head still runs on every row; only the copy out shrinks).
 */
export type KeepPlacement = 'before-head' | 'on-logits';

/** A rewritten model, or why the graph was left as it is. */
export type KeepLastLogits = { bytes: Uint8Array; placement: KeepPlacement } | { skipped: string };

/** Ops between the head and `logits` that act on each position alone (a slice commutes with them). */
const PER_POSITION_OPS = new Set(['Cast', 'Identity']);
/** Ops through which a weight stays a constant. */
const CONSTANT_OPS = new Set(['Constant', 'Transpose', 'Cast', 'Identity', 'DequantizeLinear', 'Reshape']);

/** Rewrites `bytes` (a ModelProto) to take KEEP_INPUT; never changes what the kept rows compute. */
export function keepLastLogits(bytes: Uint8Array): KeepLastLogits {
  const model = readModelView(bytes);
  const { graph } = model;
  if (graph.inputs.some((input) => input.name === KEEP_INPUT || input.name === GRAPH_IO.logitsToKeep))
    return { skipped: 'the graph already takes a logits-to-keep input' };
  const opset = defaultOpsetOf(model);
  if (opset < MIN_OPSET) return { skipped: `opset ${opset} is older than ${MIN_OPSET}` };
  const logits = graph.outputs.find((o) => o.name === GRAPH_IO.logits);
  const producer = graph.producerOf(GRAPH_IO.logits);
  if (!logits || !producer) return { skipped: 'no top-level node writes "logits"' };
  // Axis 1 is positions only in [rows, positions, vocab]: any other declared form is left alone.
  if (!logits.hasShape || logits.dims.length !== 3)
    return { skipped: `"logits" is not declared as [rows, positions, vocab]` };
  const numReads = numReadsOf(graph);
  if ((numReads.get(GRAPH_IO.logits) ?? 0) > 0) return { skipped: 'a node reads "logits"' };
  const head = headOf(graph, numReads);
  const edit = head ? beforeHead(head) : onLogits(producer);
  return { bytes: rewrite(bytes, model, edit, logits.span, logits.elemTypeCode), placement: edit.placement };
}

/** How many times each tensor is read by a node, at any depth (a subgraph may read outer names). */
function numReadsOf(graph: GraphView): Map<string, number> {
  const numReads = new Map<string, number>();
  for (const node of nodesAtAnyDepth(graph))
    for (const name of node.inputs) if (name) numReads.set(name, (numReads.get(name) ?? 0) + 1);
  return numReads;
}

/**
 * The head: a MatMul (or MatMulNBits) of hidden states by a constant weight whose result reaches
 * `logits` through per-position ops read by nothing else. Its hidden-states input then has the
 * logits' rank (3: rows, positions, hidden), so slicing axis 1 keeps positions.
 */
function headOf(graph: GraphView, numReads: Map<string, number>): NodeView | null {
  let node = graph.producerOf(GRAPH_IO.logits);
  while (node && node.domain === '' && PER_POSITION_OPS.has(node.opType)) {
    const input = node.inputs[0]!;
    if (numReads.get(input) !== 1 || graph.outputs.some((o) => o.name === input)) return null;
    node = graph.producerOf(input);
  }
  if (!node || !node.inputs[0] || !node.inputs[1]) return null;
  const isMatMul =
    (node.domain === '' && node.opType === 'MatMul') ||
    (node.domain === 'com.microsoft' && node.opType === 'MatMulNBits');
  return isMatMul && isConstant(node.inputs[1], graph, 4) ? node : null;
}

function isConstant(name: string, graph: GraphView, depth: number): boolean {
  if (graph.hasOwnInitializer(name)) return true;
  const node = graph.producerOf(name);
  if (!node || depth === 0 || node.domain !== '' || !CONSTANT_OPS.has(node.opType)) return false;
  return node.inputs.every((input) => input === '' || isConstant(input, graph, depth - 1));
}

/**
 * Where the slice goes: the slice reads `full` and writes `kept`, and one name of `node` changes
 * to join it (its `index`-th input becomes `kept`, or its `index`-th output becomes `full`).
 */
interface Edit {
  placement: KeepPlacement;
  node: NodeView;
  slot: 'input' | 'output';
  index: number;
  full: string;
  kept: string;
}

/** The head reads the kept hidden states. */
function beforeHead(head: NodeView): Edit {
  const kept = `${PREFIX}kept_hidden`;
  return { placement: 'before-head', node: head, slot: 'input', index: 0, full: head.inputs[0]!, kept };
}

/** The producer writes all logits under a new name; the slice writes `logits`. */
function onLogits(producer: NodeView): Edit {
  const index = producer.outputs.indexOf(GRAPH_IO.logits);
  return {
    placement: 'on-logits',
    node: producer,
    slot: 'output',
    index,
    full: `${PREFIX}all_logits`,
    kept: GRAPH_IO.logits,
  };
}

function rewrite(
  bytes: Uint8Array,
  model: ModelView,
  edit: Edit,
  logitsSpan: FieldSpan,
  elemType: number,
): Uint8Array {
  const graphPieces: Uint8Array[] = model.graph.fields.map((span) => {
    if (span === edit.node.span) return renameInNode(bytes, span, edit);
    if (span === logitsSpan) return logitsOutput(elemType);
    return bytes.subarray(span.startAt, span.endAt);
  });
  graphPieces.push(
    ...keepNodes(edit.full, edit.kept),
    ...keepInitializers(),
    valueInfoField(11, KEEP_INPUT, INT64, true),
  );
  return withGraph(bytes, model, graphPieces);
}

/** The edited node, its `index`-th input renamed to `kept` (or output to `full`). */
function renameInNode(bytes: Uint8Array, span: FieldSpan, edit: Edit): Uint8Array {
  const field = edit.slot === 'input' ? 1 : 2;
  const name = edit.slot === 'input' ? edit.kept : edit.full;
  let seen = 0;
  const fields = fieldsOf(new MemoryBytes(bytes), span.valueAt, span.endAt).map((f) => {
    if (f.field !== field) return bytes.subarray(f.startAt, f.endAt);
    return seen++ === edit.index ? textField(field, name) : bytes.subarray(f.startAt, f.endAt);
  });
  return messageField(1, fields);
}

/** start = k > 0 ? -k : 0; kept = full[:, start:, ...]. */
function keepNodes(full: string, kept: string): Uint8Array[] {
  const p = (name: string) => PREFIX + name;
  return [
    node('Greater', [KEEP_INPUT, p('zero')], p('is_limited')),
    node('Neg', [KEEP_INPUT], p('negated')),
    node('Where', [p('is_limited'), p('negated'), p('zero')], p('start')),
    node('Reshape', [p('start'), p('one_dim')], p('starts')),
    node('Slice', [full, p('starts'), p('ends'), p('axes')], kept),
  ];
}

function node(opType: string, inputs: string[], output: string): Uint8Array {
  return nodeField(`${PREFIX}${opType}`, opType, inputs, output);
}

function keepInitializers(): Uint8Array[] {
  return [
    int64InitializerField(`${PREFIX}zero`, [], [0n]),
    int64InitializerField(`${PREFIX}one_dim`, [1], [1n]),
    int64InitializerField(`${PREFIX}ends`, [1], [2n ** 63n - 1n]),
    int64InitializerField(`${PREFIX}axes`, [1], [1n]),
  ];
}

/** `logits` with its element type and no declared shape (its positions axis is now the kept count). */
function logitsOutput(elemType: number): Uint8Array {
  return valueInfoField(12, GRAPH_IO.logits, elemType);
}

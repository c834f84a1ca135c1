/**
 * Gives a decoder graph without `num_logits_to_keep` that input (Hugging Face semantics: keep the
 * last k positions' logits, 0 keeps all). Sampling needs one row; a graph that returns all of
 * them makes each prefill compute and copy [rows, tokens, vocab] floats (16 MB for 128 tokens of
 * a 32k vocabulary) that the slot worker then has to collect, on the first token's path.
 */
import { fieldsOf, messageField, textField } from './proto-bytes';
import type { FieldSpan } from './proto-bytes';
import { modelPartsOf } from './graph-parts';
import { int64InitializerField, nodeField, valueInfoField, withGraph } from './graph-writes';
import type { ModelParts, NodeParts } from './graph-parts';
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
  const parts = modelPartsOf(bytes);
  if (parts.inputs.has(KEEP_INPUT) || parts.inputs.has(GRAPH_IO.logitsToKeep))
    return { skipped: 'the graph already takes a logits-to-keep input' };
  if (parts.defaultOpset < MIN_OPSET)
    return { skipped: `opset ${parts.defaultOpset} is older than ${MIN_OPSET}` };
  const logits = parts.outputs.find((o) => o.name === GRAPH_IO.logits);
  const producerOf = new Map(
    parts.nodes.flatMap((node) => node.outputs.map((name) => [name, node] as const)),
  );
  const producer = producerOf.get(GRAPH_IO.logits);
  if (!logits || !producer) return { skipped: 'no top-level node writes "logits"' };
  // Axis 1 is positions only in [rows, positions, vocab]: any other declared form is left alone.
  if (logits.rank !== 3) return { skipped: `"logits" is not declared as [rows, positions, vocab]` };
  if ((parts.numReads.get(GRAPH_IO.logits) ?? 0) > 0) return { skipped: 'a node reads "logits"' };
  const head = headOf(parts, producerOf);
  const edit = head ? beforeHead(head) : onLogits(producer);
  return { bytes: rewrite(bytes, parts, edit, logits.span, logits.elemType), placement: edit.placement };
}

/**
 * The head: a MatMul (or MatMulNBits) of hidden states by a constant weight whose result reaches
 * `logits` through per-position ops read by nothing else. Its hidden-states input then has the
 * logits' rank (3: rows, positions, hidden), so slicing axis 1 keeps positions.
 */
function headOf(parts: ModelParts, producerOf: Map<string, NodeParts>): NodeParts | null {
  let node = producerOf.get(GRAPH_IO.logits);
  while (node && node.domain === '' && PER_POSITION_OPS.has(node.opType)) {
    const input = node.inputs[0]!;
    if (parts.numReads.get(input) !== 1 || parts.outputs.some((o) => o.name === input)) return null;
    node = producerOf.get(input);
  }
  if (!node || !node.inputs[0] || !node.inputs[1]) return null;
  const isMatMul =
    (node.domain === '' && node.opType === 'MatMul') ||
    (node.domain === 'com.microsoft' && node.opType === 'MatMulNBits');
  return isMatMul && isConstant(node.inputs[1], parts, producerOf, 4) ? node : null;
}

function isConstant(
  name: string,
  parts: ModelParts,
  producerOf: Map<string, NodeParts>,
  depth: number,
): boolean {
  if (parts.initializers.has(name)) return true;
  const node = producerOf.get(name);
  if (!node || depth === 0 || node.domain !== '' || !CONSTANT_OPS.has(node.opType)) return false;
  return node.inputs.every((input) => input === '' || isConstant(input, parts, producerOf, depth - 1));
}

/**
 * Where the slice goes: the slice reads `full` and writes `kept`, and one name of `node` changes
 * to join it (its `index`-th input becomes `kept`, or its `index`-th output becomes `full`).
 */
interface Edit {
  placement: KeepPlacement;
  node: NodeParts;
  slot: 'input' | 'output';
  index: number;
  full: string;
  kept: string;
}

/** The head reads the kept hidden states. */
function beforeHead(head: NodeParts): Edit {
  const kept = `${PREFIX}kept_hidden`;
  return { placement: 'before-head', node: head, slot: 'input', index: 0, full: head.inputs[0]!, kept };
}

/** The producer writes all logits under a new name; the slice writes `logits`. */
function onLogits(producer: NodeParts): Edit {
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
  parts: ModelParts,
  edit: Edit,
  logitsSpan: FieldSpan,
  elemType: number,
): Uint8Array {
  const graphPieces: Uint8Array[] = parts.graphFields.map((span) => {
    if (span === edit.node.span) return renameInNode(bytes, span, edit);
    if (span === logitsSpan) return logitsOutput(elemType);
    return bytes.subarray(span.startAt, span.endAt);
  });
  graphPieces.push(
    ...keepNodes(edit.full, edit.kept),
    ...keepInitializers(),
    valueInfoField(11, KEEP_INPUT, INT64, true),
  );
  return withGraph(bytes, parts, graphPieces);
}

/** The edited node, its `index`-th input renamed to `kept` (or output to `full`). */
function renameInNode(bytes: Uint8Array, span: FieldSpan, edit: Edit): Uint8Array {
  const field = edit.slot === 'input' ? 1 : 2;
  const name = edit.slot === 'input' ? edit.kept : edit.full;
  let seen = 0;
  const fields = fieldsOf(bytes, span.valueAt, span.endAt).map((f) => {
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

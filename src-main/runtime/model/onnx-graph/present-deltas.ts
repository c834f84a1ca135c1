/**
 * Gives a decoder graph an output per K/V tensor holding only the new tokens' columns
 * (`present_new.N.key` = present.N.key[:, :, -numNew:, :]). onnxruntime-node copies every
 * fetched output into a fresh buffer, and `present` is the whole past again: fetching these
 * instead lets the slot append the new columns to its past in place (measured: 13 % of a q4
 * decode step over 128 tokens, a quarter of one over 1,024). GroupQueryAttention writes each
 * row's new columns right after that row's own tokens, so its graphs gather them instead, at the
 * columns a `present_new_index` input names (GatherND, two batch dims).
 */
import { defaultOpsetOf, nodesAtAnyDepth, readModelView } from './graph-view';
import { int64InitializerField, nodeField, valueInfoField, withGraph } from './graph-writes';
import { GRAPH_IO, presentOf } from '../graph-io-names';

const INT64 = 7;

/** The delta output's name for a `present.N.kind` output. */
export function deltaNameOf(presentName: string): string {
  const present = presentOf(presentName);
  return present ? `present_new.${present.layer}.${present.kind}` : presentName;
}

/** Slice with its starts/ends/axes as inputs, negative starts from the end (11); GatherND's batch_dims (12). */
const MIN_OPSET = { sliced: 11, gathered: 12 };
const PREFIX = 'first_frame_delta/';

/**
 * The input a GroupQueryAttention graph's deltas read: int64 [rows, K/V heads, new tokens, 1],
 * the column of each row's each new token (its past length plus the token's index).
 */
export const NEW_COLUMN_INDEX = 'present_new_index';

/** A rewritten model, or why the graph was left as it is. */
export type PresentDeltas = { bytes: Uint8Array } | { skipped: string };

/** Adds the delta outputs to `bytes` (a ModelProto); every existing output stays as it was. */
export function addPresentDeltas(bytes: Uint8Array): PresentDeltas {
  const model = readModelView(bytes);
  const { graph } = model;
  const isGqa = nodesAtAnyDepth(graph).some((node) => node.opType === 'GroupQueryAttention');
  const form = isGqa ? 'gathered' : 'sliced';
  const opset = defaultOpsetOf(model);
  if (opset < MIN_OPSET[form]) return { skipped: `opset ${opset} is older than ${MIN_OPSET[form]}` };
  if (!graph.inputs.some((input) => input.name === GRAPH_IO.inputIds))
    return { skipped: 'the graph has no input "input_ids"' };
  const presents = graph.outputs.filter((o) => presentOf(o.name) !== null);
  if (presents.length === 0) return { skipped: 'the graph has no present.N.key/value outputs' };
  if (graph.outputs.some((o) => o.name.startsWith('present_new.')))
    return { skipped: 'the graph already has present_new outputs' };
  // A present that is also a graph input (passed through) or not 4-D is left to the full copy.
  if (presents.some((o) => o.hasShape && o.dims.length !== 4))
    return { skipped: 'a present output is not declared [rows, heads, columns, head dim]' };
  const pieces = graph.fields.map((span) => bytes.subarray(span.startAt, span.endAt));
  pieces.push(
    ...(form === 'gathered' ? gatheredDeltas(presents) : slicedDeltas(presents)),
    ...presents.map((o) => valueInfoField(12, deltaNameOf(o.name), o.elemTypeCode)),
  );
  return { bytes: withGraph(bytes, model, pieces) };
}

const p = (name: string) => PREFIX + name;

/** Each row's new columns gathered where GroupQueryAttention wrote them (NEW_COLUMN_INDEX). */
function gatheredDeltas(presents: ReadonlyArray<{ name: string }>): Uint8Array[] {
  return [
    valueInfoField(11, NEW_COLUMN_INDEX, INT64),
    ...presents.map((o) =>
      nodeField(p(`GatherND/${o.name}`), 'GatherND', [o.name, NEW_COLUMN_INDEX], deltaNameOf(o.name), {
        batch_dims: 2,
      }),
    ),
  ];
}

/** The last input_ids-length columns of each present (a masked graph appends at the end). */
function slicedDeltas(presents: ReadonlyArray<{ name: string }>): Uint8Array[] {
  return [
    nodeField(p('Shape'), 'Shape', [GRAPH_IO.inputIds], p('ids_shape')),
    nodeField(p('Gather'), 'Gather', [p('ids_shape'), p('one')], p('num_new')),
    nodeField(p('Neg'), 'Neg', [p('num_new')], p('negated')),
    nodeField(p('Reshape'), 'Reshape', [p('negated'), p('one_dim')], p('starts')),
    ...presents.map((o) =>
      nodeField(
        p(`Slice/${o.name}`),
        'Slice',
        [o.name, p('starts'), p('ends'), p('axes')],
        deltaNameOf(o.name),
      ),
    ),
    int64InitializerField(p('one'), [], [1n]),
    int64InitializerField(p('one_dim'), [1], [1n]),
    int64InitializerField(p('ends'), [1], [2n ** 63n - 1n]),
    int64InitializerField(p('axes'), [1], [2n]),
  ];
}

/**
 * Pieces a graph rewrite writes into a ModelProto's graph: nodes, int64 initializers, inputs
 * and outputs, each as a complete GraphProto field; and the model with its graph rebuilt from
 * pieces (every untouched field copied as it is).
 */
import { bytesField, concatBytes, messageField, textField, varintField } from './proto-writer';
import type { ModelView } from './graph-view';

const INT64 = 7;
const ATTRIBUTE_INT = 2;

/** A default-domain node named `name` (GraphProto field 1), with INT attributes when given. */
export function nodeField(
  name: string,
  opType: string,
  inputs: string[],
  output: string,
  intAttributes: Record<string, number> = {},
): Uint8Array {
  return messageField(1, [
    ...inputs.map((input) => textField(1, input)),
    textField(2, output),
    textField(3, name),
    textField(4, opType),
    ...Object.entries(intAttributes).map(([key, value]) =>
      messageField(5, [textField(1, key), varintField(3, value), varintField(20, ATTRIBUTE_INT)]),
    ),
  ]);
}

/** An int64 initializer of `dims` holding `values` (GraphProto field 5). */
export function int64InitializerField(name: string, dims: number[], values: bigint[]): Uint8Array {
  const raw = new Uint8Array(BigInt64Array.from(values).buffer);
  return messageField(5, [
    ...dims.map((dim) => varintField(1, dim)),
    varintField(2, INT64),
    textField(8, name),
    concatBytes(bytesField(9, [raw])),
  ]);
}

/** A graph input (field 11) or output (field 12) of `elemType`; `isScalar` declares rank 0, else no shape. */
export function valueInfoField(field: 11 | 12, name: string, elemType: number, isScalar = false): Uint8Array {
  const tensorType = messageField(1, [varintField(1, elemType), ...(isScalar ? [messageField(2, [])] : [])]);
  return messageField(field, [textField(1, name), messageField(2, [tensorType])]);
}

/** The model with its graph's fields replaced by `graphPieces`; every other field as it was. */
export function withGraph(bytes: Uint8Array, model: ModelView, graphPieces: Uint8Array[]): Uint8Array {
  const modelPieces = model.fields.flatMap((span) =>
    span === model.graphSpan ? bytesField(7, graphPieces) : [bytes.subarray(span.startAt, span.endAt)],
  );
  return concatBytes(modelPieces);
}

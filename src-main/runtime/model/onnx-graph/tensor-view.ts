/**
 * Tensors of a graph read from a model's bytes: initializers and Constant values as views into
 * the bytes (or into external data files), and their values as numbers. graph-view.ts reads the
 * graph around them.
 */
import { fieldsOf, floatsOf, signedVarintsOf, textOf, varintOf } from './proto-reader';
import type { ByteSource, FieldSpan } from './proto-reader';
import { ELEMENT_BYTES, elementTypeName } from './element-types';
import { bfloat16ArrayToFloat32, halfArrayToFloat32 } from '../float16';

/** An initializer or constant: element type (ONNX name), dims, and its little-endian bytes. */
export interface TensorView {
  name: string;
  elemType: string;
  dims: number[];
  bytes: Uint8Array;
}

/** An external data file's bytes under the name the graph gives it. */
export interface ExternalBytes {
  path: string;
  data: Uint8Array;
}

/** The bytes a model's graph is read from, and its external data by the names the graph uses. */
export interface Source {
  bytes: ByteSource;
  external: Map<string, Uint8Array>;
}

/** An initializer as its header describes it, its payload unread. */
export interface TensorHeader {
  name: string;
  elemType: string;
  dims: number[];
  /** Where its bytes live when they are external: `location`, `offset`, `length` as written. */
  external: Map<string, string> | null;
}

/** A tensor's values as float32 (float32, float16, bfloat16 or float64 storage); null for other types. */
export function floatValues(tensor: TensorView): Float32Array | null {
  const count = numElements(tensor);
  if (tensor.elemType === 'float32') return typedView(tensor.bytes, Float32Array, count);
  if (tensor.elemType === 'float16') return halfArrayToFloat32(typedView(tensor.bytes, Uint16Array, count));
  if (tensor.elemType === 'bfloat16')
    return bfloat16ArrayToFloat32(typedView(tensor.bytes, Uint16Array, count));
  if (tensor.elemType === 'float64') return Float32Array.from(typedView(tensor.bytes, Float64Array, count));
  return null;
}

/** A tensor's values as numbers (int64, int32, uint8, int8 or bool storage); null for other types. */
export function intValues(tensor: TensorView): number[] | null {
  const count = numElements(tensor);
  if (tensor.elemType === 'int64') return Array.from(typedView(tensor.bytes, BigInt64Array, count), Number);
  if (tensor.elemType === 'int32') return Array.from(typedView(tensor.bytes, Int32Array, count));
  if (tensor.elemType === 'uint8' || tensor.elemType === 'bool')
    return Array.from(tensor.bytes.subarray(0, count));
  if (tensor.elemType === 'int8') return Array.from(typedView(tensor.bytes, Int8Array, count));
  return null;
}

/** Elements in a tensor (1 for a scalar). */
export function numElements(tensor: Pick<TensorView, 'dims'>): number {
  return tensor.dims.reduce((a, b) => a * b, 1);
}

interface TypedArrayOf<T> {
  new (buffer: ArrayBufferLike, byteOffset: number, length: number): T;
  readonly BYTES_PER_ELEMENT: number;
}

/**
 * The first `count` elements of `bytes` as a typed array: a view when they start on an element
 * boundary, else over a copy (raw data inside a protobuf rarely starts on one).
 */
export function typedView<T>(bytes: Uint8Array, Type: TypedArrayOf<T>, count: number): T {
  if (count * Type.BYTES_PER_ELEMENT > bytes.byteLength)
    throw new Error(`${bytes.byteLength} bytes hold fewer than ${count} elements`);
  if (bytes.byteOffset % Type.BYTES_PER_ELEMENT === 0) return new Type(bytes.buffer, bytes.byteOffset, count);
  const copy = new Uint8Array(count * Type.BYTES_PER_ELEMENT);
  copy.set(bytes.subarray(0, copy.length));
  return new Type(copy.buffer, 0, count);
}

/**
 * TensorProto: dims 1, data_type 2, float_data 4, int32_data 5, int64_data 7, name 8, raw_data 9,
 * double_data 10, external_data 13, data_location 14. The header alone: no payload is read.
 */
export function tensorHeaderOf(bytes: ByteSource, span: FieldSpan): TensorHeader {
  const header: TensorHeader = { name: '', elemType: 'undefined', dims: [], external: null };
  const entries = new Map<string, string>();
  let isExternal = false;
  for (const f of fieldsOf(bytes, span.valueAt, span.endAt)) {
    if (f.field === 1) header.dims.push(...signedVarintsOf(bytes, f));
    else if (f.field === 2) header.elemType = elementTypeName(varintOf(bytes, f));
    else if (f.field === 8) header.name = textOf(bytes, f);
    else if (f.field === 14) isExternal = varintOf(bytes, f) === 1;
    else if (f.field === 13) {
      const entry = fieldsOf(bytes, f.valueAt, f.endAt);
      const key = entry.find((e) => e.field === 1);
      const value = entry.find((e) => e.field === 2);
      if (key && value) entries.set(textOf(bytes, key), textOf(bytes, value));
    }
  }
  if (isExternal) header.external = entries;
  return header;
}

/** A tensor with its data: raw bytes as a view (of memory), typed fields turned into raw bytes. */
export function tensorOf(source: Source, span: FieldSpan): TensorView {
  const { bytes } = source;
  const { external, ...header } = tensorHeaderOf(bytes, span);
  const tensor: TensorView = { ...header, bytes: new Uint8Array(0) };
  if (external) {
    tensor.bytes = externalBytesOf(source, tensor, external);
    return tensor;
  }
  const typed: Record<number, number[]> = { 4: [], 5: [], 7: [], 10: [] };
  for (const f of fieldsOf(bytes, span.valueAt, span.endAt)) {
    if (f.field === 9) tensor.bytes = bytes.slice(f.valueAt, f.endAt - f.valueAt);
    else if (f.field === 4) appendEach(typed[4]!, floatsOf(bytes, f));
    else if (f.field === 5 || f.field === 7) appendEach(typed[f.field]!, signedVarintsOf(bytes, f));
  }
  if (tensor.bytes.length === 0) tensor.bytes = typedBytes(tensor, typed);
  return tensor;
}

function externalBytesOf(source: Source, tensor: TensorView, entries: Map<string, string>): Uint8Array {
  const location = entries.get('location') ?? '';
  const data = source.external.get(location);
  if (!data) throw new Error(`initializer ${tensor.name}: its external data "${location}" was not given`);
  const offset = Number(entries.get('offset') ?? 0);
  const length = Number(entries.get('length') ?? numElements(tensor) * (ELEMENT_BYTES[tensor.elemType] ?? 1));
  if (offset + length > data.length)
    throw new Error(`initializer ${tensor.name}: ${location} ends before byte ${offset + length}`);
  return data.subarray(offset, offset + length);
}

/**
 * Appends `values` one by one: a packed field holds a whole weight (hundreds of thousands of
 * values), and spreading that many arguments into push overflows the stack.
 */
function appendEach(target: number[], values: readonly number[]): void {
  for (const value of values) target.push(value);
}

/** A tensor stored in typed fields, as the raw bytes its element type has. */
function typedBytes(tensor: TensorView, typed: Record<number, number[]>): Uint8Array {
  const asBytes = (array: ArrayBufferView) =>
    new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
  switch (tensor.elemType) {
    case 'float32':
      return asBytes(Float32Array.from(typed[4]!));
    case 'float64':
      return asBytes(Float64Array.from(typed[10]!));
    case 'int64':
      return asBytes(BigInt64Array.from(typed[7]!, BigInt));
    case 'int32':
      return asBytes(Int32Array.from(typed[5]!));
    case 'float16':
    case 'bfloat16':
    case 'uint16':
      return asBytes(Uint16Array.from(typed[5]!));
    case 'int8':
      return asBytes(Int8Array.from(typed[5]!));
    default:
      return Uint8Array.from(typed[5]!);
  }
}

// ggml's tensor types as GGUF stores them (ggml.h `ggml_type`): the one table of block size in
// values, bytes per block and, for the types First Frame converts, how a block unpacks into codes,
// scales and mins (ggml-block-unpack.ts). Dequantization (ggml-dequantize.ts) and the MatMulNBits
// mapping (to-matmul-blocks.ts) both derive from it; a type without an unpacker is refused at
// listing (storage-plan.ts).
import {
  Q2_K_UNPACK,
  Q3_K_UNPACK,
  Q4_0_UNPACK,
  Q4_1_UNPACK,
  Q4_K_UNPACK,
  Q5_0_UNPACK,
  Q5_1_UNPACK,
  Q5_K_UNPACK,
  Q6_K_UNPACK,
  Q8_0_UNPACK,
} from './ggml-block-unpack';
import type { BlockUnpack } from './ggml-block-unpack';

/** One ggml tensor type: its name as llama.cpp prints it, values and bytes per block, its unpacker. */
export interface GgmlType {
  id: number;
  name: string;
  blockValues: number;
  blockBytes: number;
  /** How a block unpacks into codes and scales; null for float types and those not converted. */
  unpack: BlockUnpack | null;
}

const TYPES: ReadonlyArray<readonly [number, string, number, number, BlockUnpack?]> = [
  [0, 'F32', 1, 4],
  [1, 'F16', 1, 2],
  [2, 'Q4_0', 32, 18, Q4_0_UNPACK],
  [3, 'Q4_1', 32, 20, Q4_1_UNPACK],
  [6, 'Q5_0', 32, 22, Q5_0_UNPACK],
  [7, 'Q5_1', 32, 24, Q5_1_UNPACK],
  [8, 'Q8_0', 32, 34, Q8_0_UNPACK],
  [9, 'Q8_1', 32, 36],
  [10, 'Q2_K', 256, 84, Q2_K_UNPACK],
  [11, 'Q3_K', 256, 110, Q3_K_UNPACK],
  [12, 'Q4_K', 256, 144, Q4_K_UNPACK],
  [13, 'Q5_K', 256, 176, Q5_K_UNPACK],
  [14, 'Q6_K', 256, 210, Q6_K_UNPACK],
  [15, 'Q8_K', 256, 292],
  [16, 'IQ2_XXS', 256, 66],
  [17, 'IQ2_XS', 256, 74],
  [18, 'IQ3_XXS', 256, 98],
  [19, 'IQ1_S', 256, 50],
  [20, 'IQ4_NL', 32, 18],
  [21, 'IQ3_S', 256, 110],
  [22, 'IQ2_S', 256, 82],
  [23, 'IQ4_XS', 256, 136],
  [24, 'I8', 1, 1],
  [25, 'I16', 1, 2],
  [26, 'I32', 1, 4],
  [27, 'I64', 1, 8],
  [28, 'F64', 1, 8],
  [29, 'IQ1_M', 256, 56],
  [30, 'BF16', 1, 2],
  [34, 'TQ1_0', 256, 54],
  [35, 'TQ2_0', 256, 66],
  [39, 'MXFP4', 32, 17],
];

const ALL: readonly GgmlType[] = TYPES.map(([id, name, blockValues, blockBytes, unpack]) => ({
  id,
  name,
  blockValues,
  blockBytes,
  unpack: unpack ?? null,
}));
const BY_ID = new Map(ALL.map((type) => [type.id, type]));
const BY_NAME = new Map(ALL.map((type) => [type.name, type]));

/** The ggml type with this id, or null for an id this table does not know. */
export function ggmlTypeOf(id: number): GgmlType | null {
  return BY_ID.get(id) ?? null;
}

/** The ggml type llama.cpp prints as `name` (`Q4_K`), or null for a name this table does not know. */
export function ggmlTypeNamed(name: string): GgmlType | null {
  return BY_NAME.get(name) ?? null;
}

/** Bytes a tensor of `numValues` values takes in `type` (rows are whole blocks in a valid file). */
export function ggmlBytesOf(type: GgmlType, numValues: number): number {
  return (numValues / type.blockValues) * type.blockBytes;
}

/** llama.cpp's `general.file_type` (LLAMA_FTYPE_MOSTLY_*): the variant name a GGUF is listed under. */
const FILE_TYPES: Record<number, string> = {
  0: 'f32',
  1: 'f16',
  2: 'q4_0',
  3: 'q4_1',
  7: 'q8_0',
  8: 'q5_0',
  9: 'q5_1',
  10: 'q2_k',
  11: 'q3_k_s',
  12: 'q3_k_m',
  13: 'q3_k_l',
  14: 'q4_k_s',
  15: 'q4_k_m',
  16: 'q5_k_s',
  17: 'q5_k_m',
  18: 'q6_k',
  19: 'iq2_xxs',
  20: 'iq2_xs',
  21: 'q2_k_s',
  22: 'iq3_xs',
  23: 'iq3_xxs',
  24: 'iq1_s',
  25: 'iq4_nl',
  26: 'iq3_s',
  27: 'iq3_m',
  28: 'iq2_s',
  29: 'iq2_m',
  30: 'iq4_xs',
  31: 'iq1_m',
  32: 'bf16',
  36: 'tq1_0',
  37: 'tq2_0',
  38: 'mxfp4_moe',
};

/** The file type's name (`q4_k_m`), or null when the file does not say or the id is unknown. */
export function fileTypeName(id: number | null): string | null {
  return id === null ? null : (FILE_TYPES[id] ?? null);
}

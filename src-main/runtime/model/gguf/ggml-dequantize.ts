// ggml's block formats decoded to floats, after ggml-quants.c's dequantize_row_* (checked value
// for value against llama.cpp's own library in the tests). Used where a tensor cannot keep its
// blocks: norms, vectors, an embedding whose blocks the Gather cannot read.

import { halfToFloat } from '../float16';

type Decoder = (b: Uint8Array, at: number, out: Float32Array, to: number) => void;
const half = (b: Uint8Array, at: number) => halfToFloat(b[at]! | (b[at + 1]! << 8));
const u32 = (b: Uint8Array, at: number) =>
  (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;

/** ggml's get_scale_min_k4: the j-th 6-bit scale and min of a Q4_K/Q5_K block's 12 scale bytes. */
export function scaleMinK4(b: Uint8Array, at: number, j: number): [number, number] {
  if (j < 4) return [b[at + j]! & 63, b[at + j + 4]! & 63];
  return [
    (b[at + j + 4]! & 0xf) | ((b[at + j - 4]! >> 6) << 4),
    (b[at + j + 4]! >> 4) | ((b[at + j]! >> 6) << 4),
  ];
}

/** The 16 signed 6-bit sub-block scales of a Q3_K block (its 12 scale bytes at `at`), minus 32. */
export function q3kScales(b: Uint8Array, at: number): Int8Array {
  const aux = new Uint32Array([u32(b, at), u32(b, at + 4), u32(b, at + 8), 0]);
  const tmp = aux[2]!;
  const m1 = 0x03030303;
  const m2 = 0x0f0f0f0f;
  aux[2] = ((aux[0]! >>> 4) & m2) | (((tmp >>> 4) & m1) << 4);
  aux[3] = ((aux[1]! >>> 4) & m2) | (((tmp >>> 6) & m1) << 4);
  aux[0] = (aux[0]! & m2) | (((tmp >>> 0) & m1) << 4);
  aux[1] = (aux[1]! & m2) | (((tmp >>> 2) & m1) << 4);
  return new Int8Array(new Uint8Array(aux.buffer).map((s) => s - 32));
}

const DECODERS: Record<string, { values: number; bytes: number; decode: Decoder }> = {
  Q4_0: {
    values: 32,
    bytes: 18,
    decode: (b, at, out, to) => {
      const d = half(b, at);
      for (let j = 0; j < 16; j++) {
        out[to + j] = ((b[at + 2 + j]! & 15) - 8) * d;
        out[to + j + 16] = ((b[at + 2 + j]! >> 4) - 8) * d;
      }
    },
  },
  Q4_1: {
    values: 32,
    bytes: 20,
    decode: (b, at, out, to) => {
      const d = half(b, at);
      const m = half(b, at + 2);
      for (let j = 0; j < 16; j++) {
        out[to + j] = (b[at + 4 + j]! & 15) * d + m;
        out[to + j + 16] = (b[at + 4 + j]! >> 4) * d + m;
      }
    },
  },
  Q5_0: {
    values: 32,
    bytes: 22,
    decode: (b, at, out, to) => {
      const d = half(b, at);
      const qh = u32(b, at + 2);
      for (let j = 0; j < 16; j++) {
        const h0 = ((qh >>> j) << 4) & 0x10;
        const h1 = (qh >>> (j + 12)) & 0x10;
        out[to + j] = (((b[at + 6 + j]! & 15) | h0) - 16) * d;
        out[to + j + 16] = (((b[at + 6 + j]! >> 4) | h1) - 16) * d;
      }
    },
  },
  Q5_1: {
    values: 32,
    bytes: 24,
    decode: (b, at, out, to) => {
      const d = half(b, at);
      const m = half(b, at + 2);
      const qh = u32(b, at + 4);
      for (let j = 0; j < 16; j++) {
        const h0 = ((qh >>> j) << 4) & 0x10;
        const h1 = (qh >>> (j + 12)) & 0x10;
        out[to + j] = ((b[at + 8 + j]! & 15) | h0) * d + m;
        out[to + j + 16] = ((b[at + 8 + j]! >> 4) | h1) * d + m;
      }
    },
  },
  Q8_0: {
    values: 32,
    bytes: 34,
    decode: (b, at, out, to) => {
      const d = half(b, at);
      for (let j = 0; j < 32; j++) out[to + j] = ((b[at + 2 + j]! << 24) >> 24) * d;
    },
  },
  Q2_K: {
    values: 256,
    bytes: 84,
    decode: (b, at, out, to) => {
      const d = half(b, at + 80);
      const min = half(b, at + 82);
      let y = to;
      let is = 0;
      for (let n = 0; n < 2; n++) {
        const q = at + 16 + n * 32;
        for (let shift = 0; shift < 8; shift += 2) {
          for (const half16 of [0, 16]) {
            const sc = b[at + is++]!;
            const dl = d * (sc & 15);
            const ml = min * (sc >> 4);
            for (let l = 0; l < 16; l++) out[y++] = dl * ((b[q + l + half16]! >> shift) & 3) - ml;
          }
        }
      }
    },
  },
  Q3_K: {
    values: 256,
    bytes: 110,
    decode: (b, at, out, to) => {
      const d = half(b, at + 108);
      const scales = q3kScales(b, at + 96);
      let y = to;
      let is = 0;
      let m = 1;
      for (let n = 0; n < 2; n++) {
        const q = at + 32 + n * 32;
        for (let shift = 0; shift < 8; shift += 2, m <<= 1) {
          for (const half16 of [0, 16]) {
            const dl = d * scales[is++]!;
            for (let l = 0; l < 16; l++) {
              const low = (b[q + l + half16]! >> shift) & 3;
              out[y++] = dl * (low - (b[at + l + half16]! & m ? 0 : 4));
            }
          }
        }
      }
    },
  },
  Q4_K: {
    values: 256,
    bytes: 144,
    decode: (b, at, out, to) => {
      const d = half(b, at);
      const min = half(b, at + 2);
      for (let j = 0; j < 4; j++) {
        const [sc1, m1] = scaleMinK4(b, at + 4, 2 * j);
        const [sc2, m2] = scaleMinK4(b, at + 4, 2 * j + 1);
        const q = at + 16 + 32 * j;
        for (let l = 0; l < 32; l++) {
          out[to + 64 * j + l] = d * sc1 * (b[q + l]! & 15) - min * m1;
          out[to + 64 * j + 32 + l] = d * sc2 * (b[q + l]! >> 4) - min * m2;
        }
      }
    },
  },
  Q5_K: {
    values: 256,
    bytes: 176,
    decode: (b, at, out, to) => {
      const d = half(b, at);
      const min = half(b, at + 2);
      for (let j = 0; j < 4; j++) {
        const [sc1, m1] = scaleMinK4(b, at + 4, 2 * j);
        const [sc2, m2] = scaleMinK4(b, at + 4, 2 * j + 1);
        const ql = at + 48 + 32 * j;
        const u1 = 1 << (2 * j);
        const u2 = 2 << (2 * j);
        for (let l = 0; l < 32; l++) {
          const qh = b[at + 16 + l]!;
          out[to + 64 * j + l] = d * sc1 * ((b[ql + l]! & 15) + (qh & u1 ? 16 : 0)) - min * m1;
          out[to + 64 * j + 32 + l] = d * sc2 * ((b[ql + l]! >> 4) + (qh & u2 ? 16 : 0)) - min * m2;
        }
      }
    },
  },
  Q6_K: {
    values: 256,
    bytes: 210,
    decode: (b, at, out, to) => {
      const d = half(b, at + 208);
      for (let n = 0; n < 2; n++) {
        const ql = at + 64 * n;
        const qh = at + 128 + 32 * n;
        const sc = at + 192 + 8 * n;
        const y = to + 128 * n;
        for (let l = 0; l < 32; l++) {
          const is = l >> 4;
          const h = b[qh + l]!;
          const s = (i: number) => (b[sc + is + i]! << 24) >> 24;
          out[y + l] = d * s(0) * (((b[ql + l]! & 15) | ((h & 3) << 4)) - 32);
          out[y + l + 32] = d * s(2) * (((b[ql + l + 32]! & 15) | (((h >> 2) & 3) << 4)) - 32);
          out[y + l + 64] = d * s(4) * (((b[ql + l]! >> 4) | (((h >> 4) & 3) << 4)) - 32);
          out[y + l + 96] = d * s(6) * (((b[ql + l + 32]! >> 4) | (((h >> 6) & 3) << 4)) - 32);
        }
      }
    },
  },
};

/** Decodes `numValues` values of ggml type `typeName` from `bytes` (a whole number of blocks). */
export function dequantize(typeName: string, bytes: Uint8Array, numValues: number): Float32Array {
  const out = new Float32Array(numValues);
  if (typeName === 'F32') {
    out.set(new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + numValues * 4)));
    return out;
  }
  if (typeName === 'F16' || typeName === 'BF16') {
    for (let i = 0; i < numValues; i++) {
      const bits = bytes[2 * i]! | (bytes[2 * i + 1]! << 8);
      out[i] = typeName === 'F16' ? halfToFloat(bits) : bf16ToFloat(bits);
    }
    return out;
  }
  const decoder = DECODERS[typeName];
  if (!decoder) throw new Error(`ggml type ${typeName} cannot be decoded here`);
  for (let block = 0; block * decoder.values < numValues; block++)
    decoder.decode(bytes, block * decoder.bytes, out, block * decoder.values);
  return out;
}

const bf16View = new Float32Array(1);
const bf16Bits = new Uint32Array(bf16View.buffer);
function bf16ToFloat(bits: number): number {
  bf16Bits[0] = bits << 16;
  return bf16View[0]!;
}

// llama.cpp's own C functions, called through koffi (an FFI installed beside node-llama-cpp by
// `npm run peers:install`): ggml's quantizer and dequantizer for ground truth on block formats,
// and llama_model_quantize to make real K-quant GGUFs from an f16 one. Nothing is downloaded or
// built: the libraries are node-llama-cpp's prebuilt ones.

import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PEERS_DIR } from './llama-cpp';

/** ggml_type ids of the types the tests quantize (ggml.h). */
export const GGML_TYPE_IDS: Record<string, number> = {
  F32: 0,
  F16: 1,
  Q4_0: 2,
  Q4_1: 3,
  Q5_0: 6,
  Q5_1: 7,
  Q8_0: 8,
  Q2_K: 10,
  Q3_K: 11,
  Q4_K: 12,
  Q5_K: 13,
  Q6_K: 14,
};

/** llama_ftype ids (llama.h) of the whole-file types the oracles make. */
export const LLAMA_FTYPES = {
  f16: 1,
  q4_0: 2,
  q4_1: 3,
  q8_0: 7,
  q5_0: 8,
  q4_k_m: 15,
  q5_k_m: 17,
  q6_k: 18,
  q3_k_m: 12,
  q2_k: 10,
} as const;

/** A file type llama_model_quantize can make. */
export type LlamaFtypeName = keyof typeof LLAMA_FTYPES;

/** The functions of llama.cpp's libraries the oracles call. */
export interface LlamaFfi {
  /** ggml's dequantize_row_<type> over `numValues` values. */
  dequantize(typeName: string, bytes: Uint8Array, numValues: number): Float32Array;
  /** ggml_quantize_chunk: float rows (row-major) → the type's blocks. */
  quantize(typeName: string, values: Float32Array, numRows: number, rowLength: number): Uint8Array;
  /** llama_model_quantize: `input` (a GGUF) → `output` in `ftype`, on `numThreads` threads. */
  quantizeModel(input: string, output: string, ftype: LlamaFtypeName, numThreads?: number): void;
}

interface Koffi {
  load(file: string): { func(signature: string): (...args: unknown[]) => unknown };
  struct(name: string, fields: Record<string, string>): unknown;
}

let cached: LlamaFfi | { error: string } | null = null;

/** llama.cpp's functions, or why they cannot be loaded (peers not installed, no koffi). */
export function loadLlamaFfi(): LlamaFfi | { error: string } {
  cached ??= open();
  return cached;
}

function open(): LlamaFfi | { error: string } {
  const require = createRequire(path.join(PEERS_DIR, 'package.json'));
  let koffi: Koffi;
  try {
    koffi = require('koffi') as Koffi;
  } catch {
    return { error: `koffi is not installed in ${PEERS_DIR}: run npm run peers:install` };
  }
  const binDir = binaryDir();
  if (!binDir)
    return {
      error: `node-llama-cpp's prebuilt libraries are not in ${PEERS_DIR}: run npm run peers:install`,
    };
  const lib = (prefix: string) => {
    const name = readdirSync(binDir).find((f) => f.startsWith(prefix) && /\.(so|dylib|dll)/.test(f));
    if (!name) throw new Error(`${prefix}* is missing from ${binDir}`);
    return koffi.load(path.join(binDir, name));
  };
  const ggml = lib('libggml-base');
  const llama = lib('libllama.');
  const dequantizers = new Map<string, (...args: unknown[]) => unknown>();
  const quantizeChunk = ggml.func(
    'size_t ggml_quantize_chunk(int type, const float *src, _Out_ uint8_t *dst, int64_t start, int64_t nrows, int64_t n_per_row, const float *imatrix)',
  );
  const rowSize = ggml.func('size_t ggml_row_size(int type, int64_t ne)');
  koffi.struct('llama_model_quantize_params', {
    nthread: 'int32_t',
    ftype: 'int',
    output_tensor_type: 'int',
    token_embedding_type: 'int',
    allow_requantize: 'bool',
    quantize_output_tensor: 'bool',
    only_copy: 'bool',
    pure: 'bool',
    keep_split: 'bool',
    dry_run: 'bool',
    imatrix: 'void *',
    kv_overrides: 'void *',
    tt_overrides: 'void *',
    prune_layers: 'void *',
    max_buf_size: 'size_t',
  });
  const defaults = llama.func('llama_model_quantize_params llama_model_quantize_default_params()');
  const quantizeModel = llama.func(
    'uint32_t llama_model_quantize(const char *inp, const char *out, const llama_model_quantize_params *params)',
  );
  llama.func('void llama_backend_init()')();
  return {
    dequantize(typeName, bytes, numValues) {
      let fn = dequantizers.get(typeName);
      if (!fn) {
        fn = ggml.func(
          `void dequantize_row_${typeName.toLowerCase().replace('_k', '_K')}(const uint8_t *x, _Out_ float *y, int64_t k)`,
        );
        dequantizers.set(typeName, fn);
      }
      const out = new Float32Array(numValues);
      fn(bytes, out, numValues);
      return out;
    },
    quantize(typeName, values, numRows, rowLength) {
      const type = GGML_TYPE_IDS[typeName]!;
      const out = new Uint8Array(Number(rowSize(type, rowLength)) * numRows);
      quantizeChunk(type, values, out, 0, numRows, rowLength, null);
      return out;
    },
    quantizeModel(input, output, ftype, numThreads = 1) {
      const params = {
        ...(defaults() as Record<string, unknown>),
        ftype: LLAMA_FTYPES[ftype],
        nthread: numThreads,
      };
      const status = quantizeModel(input, output, params) as number;
      if (status !== 0) throw new Error(`llama_model_quantize ${input} → ${ftype} failed (status ${status})`);
    },
  };
}

/** node-llama-cpp's prebuilt binary folder for this platform, or null. */
function binaryDir(): string | null {
  const scope = path.join(PEERS_DIR, 'node_modules', '@node-llama-cpp');
  if (!existsSync(scope)) return null;
  for (const pkg of readdirSync(scope)) {
    const bins = path.join(scope, pkg, 'bins');
    if (!existsSync(bins)) continue;
    for (const dir of readdirSync(bins)) {
      const full = path.join(bins, dir);
      if (readdirSync(full).some((f) => f.startsWith('libllama'))) return full;
    }
  }
  return null;
}

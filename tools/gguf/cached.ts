// GGUF files cached beside the model they were made from (`<model>/gguf/model-<type>.gguf`, or
// a folder the caller names), remade when the source ONNX file's size or modification time
// changes.

import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { convertFolderToGguf } from './convert';
import type { GgufWeightType } from './llama-tensors';

/** A GGUF ready to load, and whether this call made it. */
export interface CachedGguf {
  path: string;
  isMadeNow: boolean;
  makeMs: number | null;
}

/** What the writer puts in a file; raised when that changes (2: the chat template), so older files are remade. */
const WRITER_VERSION = 2;

/** The identity of the source file the GGUF was made from (cheap: no hashing of 200 MB), and the writer's. */
function sourceStamp(onnxPath: string): string {
  const stat = statSync(onnxPath);
  return `${stat.size}:${stat.mtimeMs}:w${WRITER_VERSION}`;
}

/**
 * The folder's GGUF in `type` (in `cacheDir`, default `<model>/gguf`), made from `<model>/onnx/model.onnx` when missing or stale.
 * Written under a temporary name and renamed, so a crash never leaves a half file in place.
 */
export function ensureGguf(
  modelDir: string,
  type: GgufWeightType,
  cacheDir: string | null = null,
): CachedGguf {
  const onnxPath = join(modelDir, 'onnx', 'model.onnx');
  const dir = cacheDir ?? join(modelDir, 'gguf');
  const path = join(dir, `model-${type}.gguf`);
  const stampPath = `${path}.source`;
  const stamp = sourceStamp(onnxPath);
  if (existsSync(path) && existsSync(stampPath) && readFileSync(stampPath, 'utf8') === stamp)
    return { path, isMadeNow: false, makeMs: null };
  mkdirSync(dir, { recursive: true });
  const startMs = performance.now();
  convertFolderToGguf({ modelDir, type, onnxPath, outPath: `${path}.partial` });
  renameSync(`${path}.partial`, path);
  writeFileSync(stampPath, stamp);
  return { path, isMadeNow: true, makeMs: performance.now() - startMs };
}

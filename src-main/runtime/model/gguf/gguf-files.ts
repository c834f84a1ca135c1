// Which files make one GGUF model: a single `.gguf`, or a split set `NAME-00001-of-0000N.gguf`
// (llama.cpp's gguf-split), whose every shard must be present. Each shard's header is read; the
// tensors of all shards form one directory, each tensor remembering its file.

import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { GgufFormatError, readGgufHeader } from './gguf-header';
import type { GgufHeader, GgufMetaValue, GgufTensorInfo } from './gguf-header';

const SPLIT = /^(.*)-(\d{5})-of-(\d{5})\.gguf$/i;

/** A tensor of the set: where it lies (which file) and what it is. */
export interface GgufSetTensor extends GgufTensorInfo {
  file: string;
}

/** One model's GGUF files, read: the first shard's metadata and every shard's tensors. */
export interface GgufSet {
  /** Shards in order (one file when not split). */
  files: string[];
  metadata: Map<string, GgufMetaValue>;
  tensors: Map<string, GgufSetTensor>;
  /** Bytes of all files. */
  numBytes: number;
  /** sha256 over each shard's size, mtime and header bytes: the conversion's key. */
  identity: string;
}

/** The name a GGUF file or set is listed under: its file name without `.gguf` and the split suffix. */
export function ggufModelName(file: string): string {
  const base = path.basename(file);
  const split = SPLIT.exec(base);
  return split ? split[1]! : base.replace(/\.gguf$/i, '');
}

/** True for a split set's shard other than the first (listed through shard 1 only). */
export function isLaterShard(file: string): boolean {
  const split = SPLIT.exec(path.basename(file));
  return split !== null && Number(split[2]) !== 1;
}

/** The shard paths of the set `file` belongs to (itself alone when not split). */
export function shardPathsOf(file: string): string[] {
  const split = SPLIT.exec(path.basename(file));
  if (!split) return [file];
  const count = Number(split[3]);
  const width = split[3]!.length;
  return Array.from({ length: count }, (_, i) =>
    path.join(path.dirname(file), `${split[1]}-${String(i + 1).padStart(width, '0')}-of-${split[3]}.gguf`),
  );
}

/**
 * Reads the headers of the set `file` belongs to. Throws GgufFormatError naming a missing shard,
 * a shard that is not a GGUF, or a tensor named twice (in one file, or in two shards).
 */
export function readGgufSet(file: string): GgufSet {
  const files = shardPathsOf(file);
  const missing = files.filter((f) => !existsSync(f)).map((f) => path.basename(f));
  if (missing.length > 0)
    throw new GgufFormatError(
      `is part of a split set whose ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} missing`,
    );
  const identity = createHash('sha256');
  const tensors = new Map<string, GgufSetTensor>();
  let metadata: Map<string, GgufMetaValue> | null = null;
  let numBytes = 0;
  for (const shard of files) {
    let header: GgufHeader;
    try {
      header = readGgufHeader(shard);
    } catch (error) {
      if (error instanceof GgufFormatError && files.length > 1)
        throw new GgufFormatError(`shard ${path.basename(shard)} ${error.message}`);
      throw error;
    }
    metadata ??= header.metadata;
    numBytes += header.fileBytes;
    const info = statSync(shard);
    identity.update(`${info.size}:${info.mtimeMs}:${header.headerBytes}\n`);
    identity.update(headerDigest(header));
    for (const tensor of header.tensors) {
      const earlier = tensors.get(tensor.name);
      if (earlier)
        throw new GgufFormatError(
          earlier.file === shard
            ? `holds tensor "${tensor.name}" twice: it appears twice in ${path.basename(shard)}`
            : `holds tensor "${tensor.name}" twice: in ${path.basename(earlier.file)} and in ${path.basename(shard)}`,
        );
      tensors.set(tensor.name, { ...tensor, file: shard });
    }
  }
  return { files, metadata: metadata!, tensors, numBytes, identity: identity.digest('hex') };
}

/** A digest of what the header says (metadata keys and the tensor directory). */
function headerDigest(header: GgufHeader): string {
  const hash = createHash('sha256');
  for (const [key, value] of header.metadata) hash.update(`${key}=${summary(value)}\n`);
  for (const t of header.tensors) hash.update(`${t.name}:${t.type.name}:${t.dims.join('x')}@${t.offset}\n`);
  return hash.digest('hex');
}

function summary(value: GgufMetaValue): string {
  if (!Array.isArray(value)) return String(value);
  const hash = createHash('sha256');
  for (const item of value) hash.update(`${summary(item)}\u0000`);
  return `[${value.length}:${hash.digest('hex').slice(0, 16)}]`;
}

/**
 * Fake homes for discovery tests: an Ollama store (manifests and blobs), an LM Studio models
 * folder and a Hugging Face cache (snapshots linking into blobs), laid out as those programs
 * write them, in a temporary folder.
 */
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { writeGguf } from '../../tools/gguf/gguf-file';
import type { DiscoveryEnvironment } from '../../src-main/runtime/model/discovery/places';

/** A discovery environment rooted at a fake home, with no variables and no system stores. */
export function fakeEnvironment(homeDir: string, env: Record<string, string> = {}): DiscoveryEnvironment {
  return { homeDir, env, systemOllamaDirs: [] };
}

/** A small GGUF of an architecture First Frame refuses (a listing has something to say about it). */
export function writeTinyGguf(file: string, architecture = 'mamba'): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeGguf(file, [['general.architecture', { type: 'string', value: architecture }]], []);
}

/** A layer of an Ollama model: its media type suffix and content (a file to copy, or text). */
export interface OllamaLayer {
  type: string;
  text?: string;
  file?: string;
}

/** Writes blobs and a manifest for `host/namespace/model/tag`; returns the blob paths by layer type. */
export function writeOllamaModel(
  root: string,
  [host, namespace, model, tag]: [string, string, string, string],
  layers: OllamaLayer[],
): Record<string, string> {
  mkdirSync(path.join(root, 'blobs'), { recursive: true });
  const blobs: Record<string, string> = {};
  const entries = layers.map((layer) => {
    const bytes = layer.file ? readFileSync(layer.file) : Buffer.from(layer.text ?? '');
    const hex = createHash('sha256').update(bytes).digest('hex');
    const blob = path.join(root, 'blobs', `sha256-${hex}`);
    writeFileSync(blob, bytes);
    blobs[layer.type] = blob;
    return {
      mediaType: `application/vnd.ollama.image.${layer.type}`,
      digest: `sha256:${hex}`,
      size: bytes.length,
    };
  });
  writeManifest(root, [host, namespace, model, tag], { schemaVersion: 2, layers: entries });
  return blobs;
}

/** Writes a manifest as given (for broken ones). */
export function writeManifest(
  root: string,
  parts: [string, string, string, string],
  manifest: unknown,
): string {
  const file = path.join(root, 'manifests', ...parts);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, typeof manifest === 'string' ? manifest : JSON.stringify(manifest));
  return file;
}

/**
 * A Hugging Face cache repository `models--org--name` whose snapshot holds `files` (relative
 * path → source file), each a link into blobs/ as huggingface_hub writes them; refs/main names it.
 */
export function writeHfRepo(hub: string, repoId: string, files: Record<string, string>): string {
  const repo = path.join(hub, `models--${repoId.split('/').join('--')}`);
  const commit = createHash('sha1').update(repoId).digest('hex');
  const snapshot = path.join(repo, 'snapshots', commit);
  mkdirSync(path.join(repo, 'blobs'), { recursive: true });
  mkdirSync(path.join(repo, 'refs'), { recursive: true });
  writeFileSync(path.join(repo, 'refs', 'main'), commit);
  for (const [rel, source] of Object.entries(files)) {
    const bytes = readFileSync(source);
    const blob = path.join(repo, 'blobs', createHash('sha256').update(bytes).digest('hex'));
    copyFileSync(source, blob);
    const link = path.join(snapshot, rel);
    mkdirSync(path.dirname(link), { recursive: true });
    symlinkSync(path.relative(path.dirname(link), blob), link);
  }
  return snapshot;
}

/** Every file under `root` with its size and mtime: equal before and after proves nothing was written. */
export function treeStamp(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      const info = statSync(full, { throwIfNoEntry: false });
      if (!info) continue;
      out.push(`${path.relative(root, full)}:${info.size}:${info.mtimeMs}`);
      if (info.isDirectory()) walk(full);
    }
  };
  walk(root);
  return out;
}

/**
 * `--model FILE.gguf`'s real-size figures: each engine serving the file in a child process of its
 * own (serving-child.ts), so resident memory is that engine's alone. First Frame runs twice on one
 * fresh data folder: cold (the file just dropped into its models folder, nothing converted: the
 * conversion, the slot load and the first token) and warm (a restart with the conversion in
 * place); llama.cpp once. The data folder's bytes are counted after the cold run.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServingFigures, ServingJob } from './serving-child';

const CHILD = fileURLToPath(new URL('./serving-child.ts', import.meta.url));

/** The three runs' figures and the data folder's bytes after the cold one. */
export interface ServingResults {
  cold: ServingFigures | { error: string };
  warm: ServingFigures | { error: string };
  llamaCpp: ServingFigures | { error: string };
  /** Bytes the data folder holds once the cold run converted and loaded the file (blocks on disk). */
  dataFolderBytes: number;
  ggufBytes: number;
  contextSize: number;
  numThreads: number;
}

/** Bytes `dir` takes on disk (allocated blocks, so sparse files count what they hold). */
export function diskBytesOf(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const at = path.join(dir, entry.name);
    total += entry.isDirectory() ? diskBytesOf(at) : statSync(at).blocks * 512;
  }
  return total;
}

function runChild(job: ServingJob): ServingFigures | { error: string } {
  const result = spawnSync(process.execPath, ['--import', 'tsx', CHILD, JSON.stringify(job)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const last = result.stdout.trim().split('\n').pop() ?? '';
  if (result.status !== 0 || !last.startsWith('{'))
    return {
      error: `${job.engine} child exited ${result.status}: ${result.stderr.trim().split('\n').slice(-3).join(' | ')}`,
    };
  return JSON.parse(last) as ServingFigures;
}

/** The file dropped into a fresh models folder: a hard link (same disk), else a copy. */
function dropInto(modelsDir: string, file: string): string {
  mkdirSync(modelsDir, { recursive: true });
  const dropped = path.join(modelsDir, path.basename(file));
  try {
    linkSync(file, dropped);
  } catch {
    copyFileSync(file, dropped); // another disk: a copy, as a user's drag would make
  }
  return dropped;
}

/** Runs the three children on `file`; the scratch folders are removed afterwards. */
export function measureServing(
  file: string,
  spec: { numThreads: number; contextSize: number; onProgress: (label: string) => void },
): ServingResults {
  const root = mkdtempSync(path.join(os.tmpdir(), 'ff-peers-serving-'));
  try {
    const modelsDir = path.join(root, 'models');
    const dataDir = path.join(root, 'data');
    mkdirSync(dataDir);
    const dropped = dropInto(modelsDir, file);
    const job = (engine: ServingJob['engine']): ServingJob => ({
      engine,
      file: dropped,
      modelsDir,
      dataDir,
      numThreads: spec.numThreads,
      contextSize: spec.contextSize,
    });
    spec.onProgress('First Frame cold (convert, load, answer)');
    const cold = runChild(job('first-frame'));
    const dataFolderBytes = diskBytesOf(dataDir);
    spec.onProgress('First Frame warm (load, answer)');
    const warm = runChild(job('first-frame'));
    spec.onProgress('llama.cpp (load, answer)');
    const llamaCpp = runChild(job('llama.cpp'));
    return {
      cold,
      warm,
      llamaCpp,
      dataFolderBytes,
      ggufBytes: statSync(file).size,
      contextSize: spec.contextSize,
      numThreads: spec.numThreads,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

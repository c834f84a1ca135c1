/**
 * `npm run bench -- peers --model FILE.gguf`: the file converted as the app converts it (timed,
 * with the process's peak resident memory), then a runtime whose models folder holds the file,
 * so First Frame runs the converted graph while llama.cpp runs the very same file.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Runtime } from '../../src-main/runtime/runtime';
import type { CatalogueModel } from '../../src-main/runtime/model/catalogue';
import type { RuntimeOptions } from '../../src-main/runtime/runtime-options';
import { BUNDLED_MODELS_DIR } from '../../src-main/cli/paths';
import { convertedDirOf, convertGguf } from '../../src-main/runtime/model/gguf/gguf-convert';
import { inspectGguf } from '../../src-main/runtime/model/gguf/gguf-model';
import type { PairTarget } from './precision';

/** Where the bench converts into (its own graph cache, so the app's is untouched). */
const CONVERTED_ROOT = fileURLToPath(new URL('../../.cache/peers/converted', import.meta.url));

/** One conversion's figures: sizes, wall time and memory (bytes; the peak is the whole process's). */
export interface GgufConversionFigures {
  file: string;
  fileType: string;
  storage: string;
  ggufBytes: number;
  onnxBytes: number;
  dataBytes: number;
  convertMs: number;
  rssBeforeBytes: number;
  peakRssBytes: number;
}

/**
 * Converts `file` afresh (a previous conversion is removed first, so every run measures one) on
 * this thread, the app's conversion code as its conversion thread runs it.
 */
export function convertForPeers(file: string): GgufConversionFigures {
  const model = inspectGguf(file);
  const dir = convertedDirOf(CONVERTED_ROOT, model.set.identity);
  rmSync(dir, { recursive: true, force: true });
  const rssBeforeBytes = process.memoryUsage().rss;
  const record = convertGguf(file, dir);
  return {
    file,
    fileType: record.fileType,
    storage: record.storage,
    ggufBytes: record.ggufBytes,
    onnxBytes: record.onnxBytes,
    dataBytes: record.dataBytes,
    convertMs: record.convertMs,
    rssBeforeBytes,
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
  };
}

/** A runtime listing `file` from its folder, with the conversion above already in its cache. */
export async function openGgufRuntime(
  file: string,
  overrides: Partial<RuntimeOptions>,
): Promise<{ runtime: Runtime; modelId: string; model: CatalogueModel; target: PairTarget }> {
  const runtime = await Runtime.create({
    bundledModelsDir: BUNDLED_MODELS_DIR,
    userModelsDir: path.dirname(file),
    convertedModelsDir: CONVERTED_ROOT,
    ...overrides,
  });
  const name = path.basename(file).replace(/\.gguf$/i, '');
  const entry = runtime.catalogue.entryOf(name);
  if (entry?.status !== 'ok' || entry.model.conversion) {
    await runtime.close();
    throw new Error(
      `${file}: ${entry?.status === 'broken' ? entry.error : entry ? 'not converted' : 'not listed'}`,
    );
  }
  const { model } = entry;
  const target: PairTarget = {
    label: `gguf ${String(model.folder.config['gguf_file_type'] ?? '')}`.trim(),
    modelRef: entry.modelId,
    model,
    onnxPath: model.graph.onnxPath,
    ggufPath: file,
    ggufMadeMs: null,
  };
  return { runtime, modelId: entry.modelId, model, target };
}

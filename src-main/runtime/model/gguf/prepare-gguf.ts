// A GGUF model's first load: converted in a thread of its own (progress in bytes), then its
// graph read from the converted folder like any graph. A later load finds the folder and skips
// the conversion.

import { statfsSync } from 'node:fs';
import path from 'node:path';
import { spawnWorker } from '../../../threads/spawn-worker';
import type { CatalogueModel } from '../catalogue';
import { inspectVariant } from '../inspect-variant';
import { GGUF_VARIANT } from '../variants';
import type { ConvertJob, ConvertReply } from './convert-protocol';
import { CONVERTED_FILES, isConverted } from './gguf-convert';
import type { ConversionRecord } from './gguf-convert';
import type { GgufConversion } from './gguf-listing';
import type { ConversionProgress } from './gguf-weight-set';

/** Free space a conversion leaves on the disk it writes to. */
const HEADROOM_BYTES = 1024 ** 3;

/**
 * `model` ready to load: converted first when it still needs it (in the conversion thread,
 * `onProgress` told as it goes), its graph then read from the converted folder. Rejects with the
 * reason (no room on disk, a file that turned out broken); nothing half-written is left.
 */
export async function prepareGguf(
  model: CatalogueModel,
  onProgress: ConversionProgress,
): Promise<CatalogueModel> {
  const conversion = model.conversion;
  if (!conversion) return model;
  if (!isConverted(conversion.dir)) {
    checkDiskSpace(conversion);
    await convertInThread(conversion, onProgress);
  }
  const found = { variant: GGUF_VARIANT, file: CONVERTED_FILES.graph } as const;
  const graph = inspectVariant(conversion.dir, found, model.folder.shape, model.folder.tokenizer.vocabSize);
  const folder = { ...model.folder, variants: [{ found, status: 'ok' as const, graph }] };
  return { ...model, folder, graph, conversion: null };
}

function checkDiskSpace(conversion: GgufConversion): void {
  const root = path.dirname(conversion.dir);
  let freeBytes: number;
  try {
    const stats = statfsSync(existingAncestor(root));
    freeBytes = stats.bavail * stats.bsize;
  } catch {
    return; // a file system that cannot say: the write itself reports a full disk
  }
  const needed = conversion.bytesTotal + HEADROOM_BYTES;
  if (freeBytes < needed)
    throw new Error(
      `converting it needs about ${gb(needed)} free in ${root} (the converted graph plus 1 GB to spare); ${gb(freeBytes)} is free`,
    );
}

function existingAncestor(dir: string): string {
  let at = dir;
  for (;;) {
    try {
      statfsSync(at);
      return at;
    } catch {
      const parent = path.dirname(at);
      if (parent === at) return at;
      at = parent;
    }
  }
}

/** Runs one conversion in a fresh thread, which ends with it. */
function convertInThread(
  conversion: GgufConversion,
  onProgress: ConversionProgress,
): Promise<ConversionRecord> {
  const worker = spawnWorker('gguf-convert-worker', new URL('./convert-worker-entry.ts', import.meta.url));
  return new Promise<ConversionRecord>((resolve, reject) => {
    let isSettled = false;
    const settle = (error: Error | null, record?: ConversionRecord) => {
      if (isSettled) return;
      isSettled = true;
      void worker.terminate();
      if (error) reject(error);
      else resolve(record!);
    };
    worker.on('message', (reply: ConvertReply) => {
      if (reply.type === 'progress') onProgress(reply.bytesDone, reply.bytesTotal);
      else if (reply.type === 'done') settle(null, reply.record);
      else settle(new Error(`conversion failed: ${reply.message}`));
    });
    worker.on('error', (error) => settle(new Error(`conversion thread failed: ${error.message}`)));
    worker.on('exit', (code) =>
      settle(new Error(`conversion thread exited (code ${code}) before finishing`)),
    );
    const job: ConvertJob = { file: conversion.file, dir: conversion.dir };
    worker.postMessage(job);
  });
}

function gb(bytes: number): string {
  return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
}

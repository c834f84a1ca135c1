import { readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { reasonOf } from '../../telemetry/log/log';
import type { Log } from '../../telemetry/log/log';
import { GRAPH_REWRITE_FORM } from '../model/onnx-graph/rewrite-for-slot';
import { FUSE_AT_LOAD_FORM } from '../model/fuse-at-load/form';

/**
 * The graph cache's sweep, which runs on the main thread at runtime start: kept apart from
 * graph-cache.ts, which keys entries by ONNX Runtime's version and so loads onnxruntime-node,
 * which only the slot workers may (the sweep needs no version: it judges names alone).
 */

/** A `.partial` folder this old belongs to a save that died (a killed process): swept. */
export const STALE_PARTIAL_MS = 24 * 3600 * 1000;

/**
 * Whether `name` is an entry (or its `.unusable` marker) of a graph form no load reads any more:
 * an optimized graph of another rewrite form, or a fused graph (`-fusedN`, slot-worker/fusion-cache.ts)
 * of another fusion form.
 */
function isRetiredEntry(name: string): boolean {
  const fusedForm = /-fused(\d+)$/.exec(name)?.[1];
  if (fusedForm !== undefined) return Number(fusedForm) !== FUSE_AT_LOAD_FORM;
  const form = /-(?:pp|np)(\d+)(?:\.unusable)?$/.exec(name)?.[1];
  return form !== undefined && Number(form) !== GRAPH_REWRITE_FORM;
}

/**
 * Clears what no load will read: earlier versions' single-file `.ort` entries, folders of another
 * graph form (`isRetiredEntry`), and `.partial` folders of saves that died. Best effort, at
 * runtime start; returns what it removed.
 */
export function sweepGraphCache(dir: string, log: Log, nowWallMs: number = Date.now()): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return []; // no cache folder yet
  }
  const removed: string[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    try {
      const isStalePartial =
        name.endsWith('.partial') && nowWallMs - statSync(file).mtimeMs > STALE_PARTIAL_MS;
      if (!name.endsWith('.ort') && !isRetiredEntry(name) && !isStalePartial) continue;
      rmSync(file, { recursive: true, force: true });
      removed.push(name);
    } catch (error) {
      log.warn('graph-cache', `could not sweep ${file}: ${reasonOf(error)}`);
    }
  }
  return removed;
}

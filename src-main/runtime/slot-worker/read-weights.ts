import { statSync } from 'node:fs';
import path from 'node:path';
import { getHostMemory } from '../host-memory/loader';
import { slotPinningJson } from '../host-memory/slot-pinning';
import type { HostBuffer } from '../host-memory/types';
import type { WeightBytes } from './model-runner';
import type { HostBufferInfo, LoadJob } from './protocol';

/** What a loaded slot holds in host memory: how (for Slots) and the buffers released on unload. */
export interface HeldWeights {
  info: HostBufferInfo;
  buffers: HostBuffer[];
}

/** A variant's weight files in host buffers, how they are held, and the buffers (released on unload). */
export interface HostWeights extends HeldWeights {
  weights: WeightBytes;
}

/** Releases every host buffer `weights` holds (a load that failed or was not used, an unload). */
export function releaseWeights(weights: HeldWeights): void {
  for (const buffer of weights.buffers) buffer.release();
}

/**
 * A session built from the optimized-graph cache holds no buffer of ours: ORT maps the entry's
 * data file (the pre-packed weights it uses are mapped too), so there is nothing to lock.
 */
export function mappedGraphWeights(): HeldWeights {
  return {
    info: {
      hostBytes: 0,
      isPinned: false,
      pinnedReason: 'mapped by ONNX Runtime from its optimized-graph cache (no copy of ours to lock)',
      lockedBytes: 0,
      residentPct: null,
    },
    buffers: [],
  };
}

/**
 * The graph of a model whose weights lie in external data files, read alone: ONNX Runtime maps
 * the data files itself (`WeightBytes.externalFolder`). A copy of ours would be a second one: ORT
 * pre-packs each MatMul weight into its own buffer and then lets the original go, so a buffer we
 * held (and locked) kept a dead copy of every weight for the slot's life (measured on a 1B
 * Q4_K_M: 4.1 GB resident after the build instead of 2.1 GB).
 */
export async function readGraphMappingData(
  job: Pick<LoadJob, 'onnxPath' | 'externalData'>,
): Promise<HostWeights> {
  const graph = await getHostMemory().readFileInto(job.onnxPath, { lock: false });
  const dataBytes = job.externalData.reduce((sum, file) => sum + statSync(file.path).size, 0);
  return {
    weights: { bytes: graph.bytes, externalData: [], externalFolder: path.dirname(job.onnxPath) },
    info: {
      hostBytes: graph.byteLength,
      isPinned: false,
      pinnedReason: `its ${(dataBytes / 1e6).toFixed(0)} MB of weights are mapped by ONNX Runtime from the model's data file (the packed copy it runs is its own)`,
      lockedBytes: 0,
      residentPct: null,
    },
    buffers: [graph],
  };
}

/**
 * Prefetch: reads the ONNX file and each external data file into page-aligned host buffers,
 * locked in RAM when the platform and RLIMIT_MEMLOCK allow (otherwise unlocked, with the
 * reason). The session is built from these bytes, so reading is a separate, measurable step.
 */
export async function readWeights(job: Pick<LoadJob, 'onnxPath' | 'externalData'>): Promise<HostWeights> {
  const buffers: HostBuffer[] = [];
  try {
    for (const file of [job.onnxPath, ...job.externalData.map((f) => f.path)])
      buffers.push(await getHostMemory().readFileInto(file, { lock: true }));
  } catch (error) {
    for (const buffer of buffers) buffer.release();
    throw error;
  }
  const [onnx, ...external] = buffers;
  return {
    weights: {
      bytes: onnx!.bytes,
      externalData: external.map((buffer, i) => ({
        path: job.externalData[i]!.location,
        data: buffer.bytes,
      })),
      externalFolder: null,
    },
    info: combinedInfo(buffers),
    buffers,
  };
}

/** One slot's pinning facts over all its buffers: pinned only if every one is; residency weighted by size. */
function combinedInfo(buffers: HostBuffer[]): HostBufferInfo {
  const pins = buffers.map((buffer) => ({ buffer, pin: slotPinningJson(buffer) }));
  const hostBytes = buffers.reduce((sum, b) => sum + b.byteLength, 0);
  const unpinned = pins.find(({ pin }) => !pin.pinned);
  const known = pins.filter(({ pin }) => pin.resident_pct !== null);
  const residentPct =
    known.length === pins.length && hostBytes > 0
      ? known.reduce((sum, { buffer, pin }) => sum + pin.resident_pct! * buffer.byteLength, 0) / hostBytes
      : null;
  return {
    hostBytes,
    isPinned: unpinned === undefined,
    pinnedReason: (unpinned ?? pins[0]!).pin.pinned_reason,
    lockedBytes: pins.reduce((sum, { pin }) => sum + pin.locked_bytes, 0),
    residentPct,
  };
}

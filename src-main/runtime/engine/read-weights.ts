import { readFile } from 'node:fs/promises';
import type { HostBufferInfo } from './protocol';

/** Weight bytes in host memory and how they are held there. */
export interface HostWeights {
  bytes: Uint8Array;
  info: HostBufferInfo;
}

/**
 * Reads a weights file into a host buffer (prefetch). The session is built from these bytes,
 * so reading is a separate, measurable step from building.
 */
export async function readWeights(file: string, _isLocking: boolean): Promise<HostWeights> {
  const bytes = await readFile(file);
  return {
    bytes,
    info: {
      hostBytes: bytes.byteLength,
      isPinned: false,
      pinnedReason: 'plain read',
      lockedBytes: 0,
      residentPct: null,
    },
  };
}

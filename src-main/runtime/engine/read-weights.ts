import { getHostMemory, slotPinningJson } from '../host-memory';
import type { HostBuffer } from '../host-memory';
import type { HostBufferInfo } from './protocol';

/** Weight bytes in a host buffer, how they are held there, and the buffer (released on unload). */
export interface HostWeights {
  bytes: Uint8Array;
  info: HostBufferInfo;
  buffer: HostBuffer;
}

/**
 * Prefetch: reads a weights file into a page-aligned host buffer, locked in RAM when the
 * platform and RLIMIT_MEMLOCK allow (otherwise unlocked, with the reason). The session is
 * built from these bytes, so reading is a separate, measurable step from building.
 */
export async function readWeights(file: string): Promise<HostWeights> {
  const buffer = await getHostMemory().readFileInto(file, { lock: true });
  const pin = slotPinningJson(buffer);
  return {
    bytes: buffer.bytes,
    buffer,
    info: {
      hostBytes: buffer.byteLength,
      isPinned: pin.pinned,
      pinnedReason: pin.pinned_reason,
      lockedBytes: pin.locked_bytes,
      residentPct: pin.resident_pct,
    },
  };
}

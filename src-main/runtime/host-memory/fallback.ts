/**
 * Pure-TypeScript HostMemory for when the addon did not build or load: plain fs reads into a
 * normal Buffer, never locked (lockReason says why), residency unknown (null). Never throws for
 * a missing capability; file errors (ENOENT, …) still throw as they would natively.
 */
import { statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type {
  AllocateOptions,
  HostBuffer,
  HostMemory,
  HostMemoryCapabilities,
  ReadFileOptions,
  ReadTimings,
} from './types';

const DEFAULT_CHUNK_BYTES = 16 * 1024 * 1024;

class FallbackHostBuffer implements HostBuffer {
  readonly isLocked = false;
  readonly lockedBytes = 0;
  readonly isCudaRegistered = false;
  readonly backing = 'js' as const;
  private view: Uint8Array;
  private wasReleased = false;

  constructor(
    bytes: Uint8Array,
    readonly lockReason: string,
    readonly timings: ReadTimings | null,
  ) {
    this.view = bytes;
  }
  get bytes(): Uint8Array {
    return this.view;
  }
  get byteLength(): number {
    return this.view.byteLength;
  }
  get cudaReason(): string {
    return this.lockReason;
  }
  get isReleased(): boolean {
    return this.wasReleased;
  }
  residency(): null {
    return null;
  }
  release(): boolean {
    if (this.wasReleased) return false;
    this.wasReleased = true;
    this.view = new Uint8Array(0); // the GC frees the old Buffer once no one else holds it
    return true;
  }
}

async function readWholeFile(path: string, chunkBytes: number): Promise<Uint8Array> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const bytes = new Uint8Array(size);
    for (let offset = 0; offset < size;) {
      const { bytesRead } = await file.read(bytes, offset, Math.min(chunkBytes, size - offset), offset);
      if (bytesRead === 0) throw new Error(`file shrank while it was read: ${path}`);
      offset += bytesRead;
    }
    return bytes;
  } finally {
    await file.close();
  }
}

/** A HostMemory without the addon; `reason` (e.g. "native addon not built") is reported everywhere a capability is missing. */
export function createFallbackHostMemory(reason: string): HostMemory {
  const notApplied = { isApplied: false, reason };
  return {
    kind: 'fallback',
    allocate(numBytes: number, _options: AllocateOptions = {}): HostBuffer {
      if (!Number.isSafeInteger(numBytes) || numBytes < 0)
        throw new RangeError(`bad byte count: ${numBytes}`);
      return new FallbackHostBuffer(new Uint8Array(numBytes), reason, null);
    },
    async readFileInto(path: string, options: ReadFileOptions = {}): Promise<HostBuffer> {
      const startMs = performance.now();
      const bytes = await readWholeFile(path, options.chunkBytes ?? DEFAULT_CHUNK_BYTES);
      return new FallbackHostBuffer(bytes, reason, {
        lockMs: 0,
        adviseMs: 0,
        readMs: performance.now() - startMs,
      });
    },
    residency(path: string): null {
      statSync(path); // same error as the native path for a missing file
      return null;
    },
    adviseWillNeed: () => Promise.resolve(notApplied),
    adviseDontNeed: () => notApplied,
    setMemlockLimit: () => notApplied,
    trimHeap: () => notApplied,
    capabilities(): HostMemoryCapabilities {
      return {
        isNativeLoaded: false,
        nativeReason: reason,
        pageSize: null,
        memlockLimitBytes: null,
        memlockHardLimitBytes: null,
        lockedBytes: null,
        isCudaAvailable: false,
        cudaReason: reason,
        isExternalBufferAllowed: false,
      };
    },
  };
}

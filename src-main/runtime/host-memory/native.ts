/** HostMemory backed by the native addon: locked page-aligned buffers, mincore residency, fadvise hints. */
import type { NativeAddon, NativeBufferHandle } from './native-addon';
import { withResidentPct } from './residency-math';
import type {
  AllocateOptions,
  HostBuffer,
  HostMemory,
  HostMemoryCapabilities,
  MemlockLimit,
  ReadFileOptions,
  ReadTimings,
  Residency,
} from './types';

class NativeHostBuffer implements HostBuffer {
  readonly bytes: Uint8Array;

  constructor(
    private readonly handle: NativeBufferHandle,
    readonly timings: ReadTimings | null,
  ) {
    // One view for the buffer's life: release() detaches the ArrayBuffer, so it empties in place.
    this.bytes = new Uint8Array(handle.arrayBuffer);
  }

  get byteLength(): number {
    return this.bytes.byteLength;
  }
  get isLocked(): boolean {
    return this.handle.state().isLocked;
  }
  get lockReason(): string {
    return this.handle.state().lockReason;
  }
  get lockedBytes(): number {
    return this.handle.state().lockedBytes;
  }
  get isCudaRegistered(): boolean {
    return this.handle.state().isCudaRegistered;
  }
  get cudaReason(): string {
    return this.handle.state().cudaReason;
  }
  get isReleased(): boolean {
    return this.handle.state().isReleased;
  }
  get backing(): 'external' | 'engine' {
    return this.handle.state().backing;
  }
  residency(): Residency | null {
    const count = this.handle.residency();
    return count ? withResidentPct(count) : null;
  }
  release(): boolean {
    return this.handle.release();
  }
}

function memlockLimit(bytes: number | null): MemlockLimit {
  return bytes === null ? 'unlimited' : bytes;
}

function assertByteCount(numBytes: number): void {
  if (!Number.isSafeInteger(numBytes) || numBytes < 0) throw new RangeError(`bad byte count: ${numBytes}`);
}

/** Wraps a loaded addon (loaded from addonPath) as a HostMemory. */
export function createNativeHostMemory(addon: NativeAddon, addonPath: string): HostMemory {
  return {
    kind: 'native',
    allocate(numBytes: number, options: AllocateOptions = {}): HostBuffer {
      assertByteCount(numBytes);
      return new NativeHostBuffer(addon.allocate(numBytes, options), null);
    },
    async readFileInto(path: string, options: ReadFileOptions = {}): Promise<HostBuffer> {
      const result = await addon.readFileInto(path, options);
      const { lockMs, adviseMs, readMs } = result;
      return new NativeHostBuffer(result.buffer, { lockMs, adviseMs, readMs });
    },
    residency: (path: string): Residency => withResidentPct(addon.fileResidency(path)),
    adviseWillNeed: (path, options = {}) => addon.adviseWillNeed(path, options.method ?? 'fadvise'),
    adviseDontNeed: (path) => addon.adviseDontNeed(path),
    trimHeap: () =>
      addon.trimHeap?.() ?? {
        isApplied: false,
        reason: 'this native addon build predates trimHeap: run node native/build.mjs',
      },
    setMemlockLimit(numBytes: number) {
      assertByteCount(numBytes);
      const error = addon.setMemlockLimit(numBytes);
      return { isApplied: error === '', reason: error === '' ? 'ok' : error };
    },
    capabilities(): HostMemoryCapabilities {
      const raw = addon.capabilities();
      return {
        isNativeLoaded: true,
        nativeReason: `loaded from ${addonPath}`,
        pageSize: raw.pageSize,
        memlockLimitBytes: memlockLimit(raw.memlockSoftLimitBytes),
        memlockHardLimitBytes: memlockLimit(raw.memlockHardLimitBytes),
        lockedBytes: raw.lockedBytes,
        isCudaAvailable: raw.isCudaAvailable,
        cudaReason: raw.cudaReason,
        isExternalBufferAllowed: raw.isExternalBufferAllowed,
      };
    },
  };
}

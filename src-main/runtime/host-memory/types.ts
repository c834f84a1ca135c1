/**
 * The host-memory interface: host buffers for slot prefetch (locked in RAM when the platform
 * and RLIMIT_MEMLOCK allow), page residency of files and buffers, and page-cache hints.
 * Two implementations share it: the native addon (native/) and a pure-TypeScript fallback.
 */

/** Who owns a buffer's memory: our mmap ('external'), the JS engine ('engine', V8 memory cage), or a plain JS Buffer ('js'). */
export type HostBufferBacking = 'external' | 'engine' | 'js';

/** How many bytes of a file or buffer are in RAM now; residentPct is 0–100 (100 for an empty file). */
export interface Residency {
  residentBytes: number;
  totalBytes: number;
  residentPct: number;
  numResidentPages: number;
  numPages: number;
  pageSize: number;
}

/** Where a readFileInto spent its time, in ms (measured inside the addon; zeros in the fallback). */
export interface ReadTimings {
  lockMs: number;
  adviseMs: number;
  readMs: number;
}

/**
 * A host buffer. `bytes` is the same view for the buffer's whole life and becomes empty
 * (length 0) on release(); memory is also freed when the buffer is garbage collected.
 */
export interface HostBuffer {
  readonly bytes: Uint8Array;
  readonly byteLength: number;
  /** True while the pages are locked (mlock); false after release(). */
  readonly isLocked: boolean;
  /** "locked", or why not: "lock not requested", "exceeds RLIMIT_MEMLOCK: …", "mlock failed: …", "native addon not built". */
  readonly lockReason: string;
  /** Bytes actually locked (whole pages); 0 when not locked. */
  readonly lockedBytes: number;
  readonly isCudaRegistered: boolean;
  /** "registered", or why not ("cuda runtime not found", "cuda registration not requested", …). */
  readonly cudaReason: string;
  readonly isReleased: boolean;
  readonly backing: HostBufferBacking;
  /** Set by readFileInto; null for allocate(). */
  readonly timings: ReadTimings | null;
  /** Page residency of the buffer itself (mincore); null when unknown (fallback) or released. */
  residency(): Residency | null;
  /** Unlocks and frees now; idempotent. True only for the call that released. Never call while a consumer still reads `bytes` asynchronously. */
  release(): boolean;
}

/** Options for allocate(); lock is a request, honoured only within RLIMIT_MEMLOCK. */
export interface AllocateOptions {
  lock?: boolean;
  /** Try mlock even past RLIMIT_MEMLOCK (works only with CAP_IPC_LOCK); for benchmarks, never for slots. */
  lockBeyondLimit?: boolean;
  /** cudaHostRegister the buffer when a CUDA runtime and device are present. */
  registerCuda?: boolean;
  /** Force a backing (tests); default picks 'external' unless the engine forbids it. */
  backing?: 'auto' | 'external' | 'engine';
}

/** Options for readFileInto(): allocate options plus a WILLNEED hint and the pread chunk size. */
export interface ReadFileOptions extends AllocateOptions {
  /** Issue WILLNEED over the whole file (windowed) before reading. */
  willNeed?: boolean;
  chunkBytes?: number;
}

/** Outcome of a page-cache hint; isApplied false says why (e.g. fallback, unsupported platform). */
export interface AdviceResult {
  isApplied: boolean;
  reason: string;
}

/** An RLIMIT_MEMLOCK value in bytes; 'unlimited' for RLIM_INFINITY; null when unknown (fallback). */
export type MemlockLimit = number | 'unlimited' | null;

/** What this process can do with host memory, for slot cards, the API and bench output. */
export interface HostMemoryCapabilities {
  isNativeLoaded: boolean;
  /** "loaded from <path>", or why the fallback is in use. */
  nativeReason: string;
  pageSize: number | null;
  memlockLimitBytes: MemlockLimit;
  memlockHardLimitBytes: MemlockLimit;
  /** Bytes this process has locked now (VmLck); null when unknown. */
  lockedBytes: number | null;
  isCudaAvailable: boolean;
  cudaReason: string;
  /** False under a V8 memory cage (Electron): buffers then use 'engine' backing. */
  isExternalBufferAllowed: boolean;
}

/** The host-memory service the slot registry uses to prefetch weights. */
export interface HostMemory {
  readonly kind: 'native' | 'fallback';
  /** A zeroed buffer of numBytes (page-aligned when native). */
  allocate(numBytes: number, options?: AllocateOptions): HostBuffer;
  /** Reads a whole file into a new buffer (locked first when asked and allowed), off the JS thread when native. */
  readFileInto(path: string, options?: ReadFileOptions): Promise<HostBuffer>;
  /** Page-cache residency of a file (mincore over a mapping); null when unknown. Throws if the file is missing. */
  residency(path: string): Residency | null;
  /**
   * Asks the kernel to read the whole file into the page cache (hint issued in 128 KiB windows:
   * Linux caps one call at the read-ahead size). Resolves once the reads are submitted, not done.
   */
  adviseWillNeed(path: string, options?: { method?: 'fadvise' | 'madvise' }): Promise<AdviceResult>;
  /** Asks the kernel to drop the file from the page cache (dirty pages are flushed first); synchronous. */
  adviseDontNeed(path: string): AdviceResult;
  /** Sets the soft RLIMIT_MEMLOCK of this process (raising past the hard limit needs privilege). */
  setMemlockLimit(numBytes: number): AdviceResult;
  /**
   * Hands the C heap's free pages back to the system (glibc's malloc_trim): a session build
   * leaves hundreds of MB freed but resident. Synchronous; not applied without the native addon.
   */
  trimHeap(): AdviceResult;
  capabilities(): HostMemoryCapabilities;
}

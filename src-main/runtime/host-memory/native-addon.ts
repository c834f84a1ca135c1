/**
 * Finding and loading the compiled addon (native/build/Release/ff_host_memory.node) and the
 * shape it exports. Loading never throws: it returns the addon or the reason it is absent.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The addon's exports at abiVersion ADDON_ABI_VERSION (see native/src/addon.cc). */
export interface NativeAddon {
  abiVersion: number;
  allocate(numBytes: number, options: object): NativeBufferHandle;
  readFileInto(path: string, options: object): Promise<NativeReadResult>;
  fileResidency(path: string): NativeResidency;
  adviseWillNeed(
    path: string,
    method: 'fadvise' | 'madvise',
  ): Promise<{ isApplied: boolean; reason: string }>;
  adviseDontNeed(path: string): { isApplied: boolean; reason: string };
  capabilities(): NativeCapabilities;
  /** Returns '' on success, else why not. */
  setMemlockLimit(numBytes: number): string;
  /** ONNX Runtime's C API with an I/O binding (slot-worker/ort-binding/); absent from builds before it. */
  /** glibc's malloc_trim(0) (the C heap's free pages back to the system); absent from builds before it. */
  trimHeap?(): { isApplied: boolean; reason: string };
  ortLoad?(libraryPath: string): { isLoaded: boolean; reason: string; version: string };
  ortCreateSession?(libraryPath: string, source: string | Uint8Array, options: object): Promise<unknown>;
}

/** Page counts from mincore; residentBytes ≤ totalBytes. */
export interface NativeResidency {
  residentBytes: number;
  totalBytes: number;
  numResidentPages: number;
  numPages: number;
  pageSize: number;
}

/** A buffer object from the addon; state() is read fresh on every call. */
export interface NativeBufferHandle {
  readonly arrayBuffer: ArrayBuffer;
  state(): {
    byteLength: number;
    isLocked: boolean;
    lockedBytes: number;
    lockReason: string;
    isCudaRegistered: boolean;
    cudaReason: string;
    isReleased: boolean;
    backing: 'external' | 'engine';
  };
  release(): boolean;
  residency(): NativeResidency | null;
}

/** readFileInto's result: the buffer plus the addon's own phase timings (ms). */
export interface NativeReadResult {
  buffer: NativeBufferHandle;
  lockMs: number;
  adviseMs: number;
  readMs: number;
}

/** Raw capabilities; memlock limits are null when unlimited. */
export interface NativeCapabilities {
  pageSize: number;
  memlockSoftLimitBytes: number | null;
  memlockHardLimitBytes: number | null;
  lockedBytes: number;
  isCudaAvailable: boolean;
  cudaReason: string;
  isExternalBufferAllowed: boolean;
  napiVersion: number;
}

/** The abiVersion this TypeScript expects; a different build is refused as stale. */
export const ADDON_ABI_VERSION = 1;

/** The addon's file name inside native/build/Release. */
export const ADDON_FILE = 'ff_host_memory.node';

/** Either the loaded addon and its path, or why none was loaded. */
export type AddonLoadResult = { addon: NativeAddon; path: string } | { addon: null; reason: string };

/** Candidate paths: only the explicit one when given; else env, this module's ancestors, cwd, Electron resources. */
export function addonCandidates(explicitPath?: string): string[] {
  if (explicitPath) return [resolve(explicitPath)];
  const relative = join('native', 'build', 'Release', ADDON_FILE);
  const candidates: string[] = [];
  if (process.env.FF_HOST_MEMORY_ADDON) candidates.push(resolve(process.env.FF_HOST_MEMORY_ADDON));
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i += 1, dir = dirname(dir)) candidates.push(join(dir, relative));
  candidates.push(join(process.cwd(), relative));
  const resourcesPath = (process as { resourcesPath?: string }).resourcesPath;
  if (resourcesPath) candidates.push(join(resourcesPath, 'app.asar.unpacked', relative));
  return [...new Set(candidates)];
}

/** Loads the first candidate that exists; a missing, unloadable or stale build yields a reason (never throws). */
export function loadNativeAddon(explicitPath?: string): AddonLoadResult {
  const path = addonCandidates(explicitPath).find((candidate) => existsSync(candidate));
  if (!path) return { addon: null, reason: 'native addon not built' };
  try {
    const addon = createRequire(import.meta.url)(path) as NativeAddon;
    if (addon.abiVersion !== ADDON_ABI_VERSION) {
      return {
        addon: null,
        reason: `native addon is stale (abi ${String(addon.abiVersion)}, want ${ADDON_ABI_VERSION}): run node native/build.mjs`,
      };
    }
    return { addon, path };
  } catch (error) {
    return {
      addon: null,
      reason: `native addon failed to load: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

import { existsSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { loadNativeAddon } from '../../host-memory/native-addon';

/**
 * ONNX Runtime's C API reached through the native addon (native/src/ort_session.cc), on the
 * `libonnxruntime` onnxruntime-node ships: the run path that binds one memory as a layer's past
 * input and present output. Loading never throws: it returns the API or why there is none, and
 * onnxruntime-node stays the fallback.
 */

/** The element types the binding takes (ONNX's TensorProto data types). */
export const ELEMENT_TYPE = { float32: 1, int32: 6, int64: 7, float16: 10 } as const;

/** One session of the C API: the caller binds its typed arrays; `run` writes the bound outputs. */
export interface NativeBoundSession {
  readonly inputNames: string[];
  readonly outputNames: string[];
  /**
   * Whose GroupQueryAttention kernel runs the session: "grouped" (the addon's, each K/V head read
   * once for the query heads it serves) or "onnxruntime (why)".
   */
  readonly attention: string;
  /** Binds `array`'s memory (kept referenced until rebound) as input `name`, shaped `dims`. */
  bindInput(name: string, array: ArrayBufferView, dims: readonly number[], elementType: number): void;
  bindOutput(name: string, array: ArrayBufferView, dims: readonly number[], elementType: number): void;
  /** RunWithBinding on the libuv pool; no bind or release until it settles. */
  run(): Promise<void>;
  /** RunWithBinding on the calling thread, which waits for it (absent from older addon builds). */
  runHere?(): void;
  /** Ends profiling; the profile file's path. */
  endProfiling(): string;
  release(): void;
}

/** What the session is built with (bound-session-config.ts maps a slot's options onto it). */
export interface NativeSessionConfig {
  intraOpNumThreads: number;
  interOpNumThreads: number;
  /** ONNX Runtime's GraphOptimizationLevel: 0, 1, 2 or 99 (all). */
  graphOptimizationLevel: number;
  logSeverityLevel: number;
  optimizedModelFilePath?: string;
  profileFilePrefix?: string;
  configEntries: Array<[string, string]>;
  /** Run GroupQueryAttention on the addon's grouped kernel instead of ONNX Runtime's (CPU only). */
  groupedAttention: boolean;
}

/** The C API, ready to build sessions, or why the bound path is unavailable. */
export type BoundOrt =
  | {
      isAvailable: true;
      version: string;
      create(source: string | Uint8Array, config: NativeSessionConfig): Promise<NativeBoundSession>;
    }
  | { isAvailable: false; reason: string };

/** Where onnxruntime-node keeps its shared library on this platform, or null when it has none here. */
export function ortLibraryPath(): string | null {
  const require = createRequire(import.meta.url);
  let packageDir: string;
  try {
    packageDir = dirname(require.resolve('onnxruntime-node/package.json'));
  } catch {
    return null; // onnxruntime-node not installed: the caller reports it
  }
  const fileName = process.platform === 'darwin' ? 'libonnxruntime.1.dylib' : 'libonnxruntime.so.1';
  // A packaged app's native files lie beside its archive (dlopen cannot read inside app.asar).
  const unpacked = packageDir.replace(`app.asar${sep}`, `app.asar.unpacked${sep}`);
  const path = join(unpacked, 'bin', 'napi-v6', process.platform, process.arch, fileName);
  // The real path: the same file onnxruntime-node's binding loaded, so one library serves both.
  return existsSync(path) ? realpathSync(path) : null;
}

let loaded: BoundOrt | null = null;

/**
 * Loads the C API once per thread (`FF_ORT_BINDING=off` forces the fallback). The addon and
 * the library are each optional: a missing one is the reason, never an error.
 */
export function loadBoundOrt(): BoundOrt {
  if (loaded) return loaded;
  loaded = loadOnce();
  return loaded;
}

function loadOnce(): BoundOrt {
  if (process.env['FF_ORT_BINDING'] === 'off') return { isAvailable: false, reason: 'FF_ORT_BINDING=off' };
  if (process.platform === 'win32') return { isAvailable: false, reason: 'the native addon is POSIX-only' };
  const result = loadNativeAddon();
  if (!result.addon) return { isAvailable: false, reason: result.reason };
  const { ortLoad, ortCreateSession } = result.addon;
  if (!ortLoad || !ortCreateSession)
    return {
      isAvailable: false,
      reason: 'native addon predates the ONNX Runtime binding: run node native/build.mjs',
    };
  const libraryPath = ortLibraryPath();
  if (!libraryPath)
    return { isAvailable: false, reason: 'onnxruntime-node ships no shared library for this platform' };
  const status = ortLoad(libraryPath);
  if (!status.isLoaded) return { isAvailable: false, reason: status.reason };
  return {
    isAvailable: true,
    version: status.version,
    create: (source, config) => ortCreateSession(libraryPath, source, config) as Promise<NativeBoundSession>,
  };
}

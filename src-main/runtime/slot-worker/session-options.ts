import type * as ort from 'onnxruntime-node';
import type { ExecutionProvider } from './providers';

/** Session options every slot uses; threads bound so two slots can share the cores. */
export interface RunnerOptions {
  numThreads: number;
  /**
   * Whether the intra-op pool's threads spin while a run computes (the setting `canSpinThreads`);
   * they stop when the run returns either way. Moot at 1 thread: that pool has no threads.
   */
  canSpinThreads: boolean;
  /** Default cpu. */
  provider?: ExecutionProvider;
  /** Default `all`; a graph ORT already optimized (see graph-cache.ts) needs less. */
  graphOptimizationLevel?: 'disabled' | 'basic' | 'extended' | 'all';
  /** Where ORT saves the graph it optimized, for the next cold load. */
  optimizedModelFilePath?: string;
  /** Extra session config entries (ORT's `session.*` keys without the prefix). */
  sessionConfig?: Record<string, string>;
  /** Profile every run into `<prefix>_<time>.json` (benches count the nodes a step runs); never when serving. */
  profileFilePrefix?: string;
}

/**
 * ONNX Runtime's `session.*` entries for the pool's threads. Spinning: each waits for the next
 * parallel kernel awake (a step's ~126 kernels then cost no wake-up each) and stops when the run
 * returns, so nothing spins between steps or answers. Not spinning: each sleeps between kernels,
 * leaving the cores to the main thread and other programs.
 */
function spinConfigOf(canSpinThreads: boolean): Record<string, unknown> {
  return canSpinThreads
    ? { intra_op: { allow_spinning: '1' }, force_spinning_stop: '1' }
    : { intra_op: { allow_spinning: '0' } };
}

/** The ONNX Runtime session options a runner's session is built with (pure: no session made). */
export function sessionOptionsOf(options: RunnerOptions): ort.InferenceSession.SessionOptions {
  return {
    executionProviders: [options.provider ?? 'cpu'],
    graphOptimizationLevel: options.graphOptimizationLevel ?? 'all',
    ...(options.optimizedModelFilePath ? { optimizedModelFilePath: options.optimizedModelFilePath } : {}),
    ...(options.profileFilePrefix
      ? { enableProfiling: true, profileFilePrefix: options.profileFilePrefix }
      : {}),
    intraOpNumThreads: options.numThreads,
    interOpNumThreads: 1,
    logSeverityLevel: 3,
    extra: { session: { ...options.sessionConfig, ...spinConfigOf(options.canSpinThreads) } },
  };
}

import { sessionOptionsOf } from '../session-options';
import type { RunnerOptions } from '../session-options';
import type { NativeSessionConfig } from './bound-library';

/** ONNX Runtime's GraphOptimizationLevel numbers for onnxruntime-node's names. */
const OPTIMIZATION_LEVEL = { disabled: 0, basic: 1, extended: 2, layout: 3, all: 99 } as const;

/**
 * The C API session config of a runner's options: derived from `sessionOptionsOf`, the options
 * every onnxruntime-node session of a slot is built with, so both paths run the same session.
 * `extra` is flattened to dotted config keys as onnxruntime-node does (`session.intra_op.allow_spinning`).
 * Attention runs on the addon's grouped kernel unless `FF_GROUPED_ATTENTION=off` (the A/B switch).
 */
export function boundSessionConfigOf(options: RunnerOptions): NativeSessionConfig {
  const ort = sessionOptionsOf(options);
  const providers = ort.executionProviders ?? ['cpu'];
  if (providers.some((provider) => provider !== 'cpu'))
    throw new Error('the bound run path runs on the cpu provider only');
  return {
    intraOpNumThreads: ort.intraOpNumThreads ?? 1,
    interOpNumThreads: ort.interOpNumThreads ?? 1,
    graphOptimizationLevel: OPTIMIZATION_LEVEL[ort.graphOptimizationLevel ?? 'all'],
    logSeverityLevel: ort.logSeverityLevel ?? 3,
    ...(ort.optimizedModelFilePath ? { optimizedModelFilePath: ort.optimizedModelFilePath } : {}),
    ...(ort.enableProfiling && ort.profileFilePrefix ? { profileFilePrefix: ort.profileFilePrefix } : {}),
    configEntries: flattenConfig('', ort.extra ?? {}),
    groupedAttention: process.env.FF_GROUPED_ATTENTION !== 'off',
  };
}

function flattenConfig(prefix: string, value: unknown): Array<[string, string]> {
  if (value === null || typeof value !== 'object') return [[prefix, String(value)]];
  return Object.entries(value as Record<string, unknown>).flatMap(([key, inner]) =>
    flattenConfig(prefix ? `${prefix}.${key}` : key, inner),
  );
}

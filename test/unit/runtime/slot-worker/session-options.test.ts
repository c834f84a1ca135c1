import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionOptionsOf } from '../../../../src-main/runtime/slot-worker/session-options';
import type { RunnerOptions } from '../../../../src-main/runtime/slot-worker/session-options';

/** A session's `extra` entries as ONNX Runtime reads them: dotted keys (`session.intra_op.allow_spinning`). */
function configEntries(options: RunnerOptions): Map<string, string> {
  const entries = new Map<string, string>();
  const walk = (value: unknown, prefix: string): void => {
    if (typeof value === 'string') entries.set(prefix, value);
    else for (const [key, inner] of Object.entries(value as object)) walk(inner, `${prefix}.${key}`);
  };
  for (const [key, value] of Object.entries(sessionOptionsOf(options).extra as object)) walk(value, key);
  return entries;
}

/** The ONNX Runtime library this platform loads, read as bytes: the config keys it knows are strings in it. */
function onnxRuntimeLibrary(): Buffer {
  const packageDir = path.dirname(createRequire(import.meta.url).resolve('onnxruntime-node/package.json'));
  const dir = path.join(packageDir, 'bin', 'napi-v6', process.platform, process.arch);
  const file = readdirSync(dir).find((name) =>
    /^(lib)?onnxruntime(\.so\.1|\.\d+\.\d+\.\d+\.dylib|\.dll)$/.test(name),
  );
  if (!file) throw new Error(`no ONNX Runtime library in ${dir}`);
  return readFileSync(path.join(dir, file));
}

describe('a session’s ONNX Runtime options', () => {
  it('names only config keys the ONNX Runtime library knows (a misspelt key is ignored silently)', () => {
    const library = onnxRuntimeLibrary();
    const keys = new Set([
      ...configEntries({ numThreads: 2, canSpinThreads: true }).keys(),
      ...configEntries({ numThreads: 2, canSpinThreads: false }).keys(),
    ]);
    expect(keys.size).toBeGreaterThanOrEqual(2);
    expect([...keys].filter((key) => !library.includes(`${key}\0`))).toEqual([]);
  });

  it('lets the pool threads spin while a run computes and stop when it returns, only when threads may spin', () => {
    const spinning = configEntries({ numThreads: 2, canSpinThreads: true });
    expect(spinning.get('session.intra_op.allow_spinning')).toBe('1');
    expect(spinning.get('session.force_spinning_stop')).toBe('1');
    const sleeping = configEntries({ numThreads: 2, canSpinThreads: false });
    expect(sleeping.get('session.intra_op.allow_spinning')).toBe('0');
    expect(sleeping.has('session.force_spinning_stop')).toBe(false);
    expect(sessionOptionsOf({ numThreads: 3, canSpinThreads: true }).intraOpNumThreads).toBe(3);
  });

  it('keeps a caller’s session entries beside the spin entries, and the rest of the options', () => {
    const runner: RunnerOptions = {
      numThreads: 1,
      canSpinThreads: true,
      provider: 'webgpu',
      graphOptimizationLevel: 'disabled',
      optimizedModelFilePath: '/cache/graph.onnx',
      sessionConfig: { save_external_prepacked_constant_initializers: '1' },
      profileFilePrefix: '/tmp/step',
    };
    expect(sessionOptionsOf(runner)).toMatchObject({
      executionProviders: ['webgpu'],
      graphOptimizationLevel: 'disabled',
      optimizedModelFilePath: '/cache/graph.onnx',
      enableProfiling: true,
      profileFilePrefix: '/tmp/step',
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
    });
    const entries = configEntries(runner);
    expect(entries.get('session.save_external_prepacked_constant_initializers')).toBe('1');
    expect(entries.get('session.intra_op.allow_spinning')).toBe('1');
  });
});

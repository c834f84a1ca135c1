import { describe, expect, it } from 'vitest';
import { sessionOptionsOf } from '../../../../src-main/runtime/engine/session-options';

describe('a session’s ONNX Runtime options', () => {
  it('lets the pool threads spin while a run computes, and stop when it returns, when threads may spin', () => {
    const options = sessionOptionsOf({ numThreads: 2, canSpinThreads: true });
    expect(options.intraOpNumThreads).toBe(2);
    expect(options.extra).toEqual({
      session: { intra_op: { allow_spinning: '1' }, force_spinning_stop: '1' },
    });
  });

  it('keeps the pool threads asleep between kernels when threads may not spin', () => {
    const options = sessionOptionsOf({ numThreads: 2, canSpinThreads: false });
    expect(options.extra).toEqual({ session: { intra_op: { allow_spinning: '0' } } });
  });

  it('keeps a caller’s session entries beside the spin entries, and the rest of the options', () => {
    const options = sessionOptionsOf({
      numThreads: 1,
      canSpinThreads: true,
      provider: 'webgpu',
      graphOptimizationLevel: 'disabled',
      optimizedModelFilePath: '/cache/graph.onnx',
      sessionConfig: { save_external_prepacked_constant_initializers: '1' },
      profileFilePrefix: '/tmp/step',
    });
    expect(options).toMatchObject({
      executionProviders: ['webgpu'],
      graphOptimizationLevel: 'disabled',
      optimizedModelFilePath: '/cache/graph.onnx',
      enableProfiling: true,
      profileFilePrefix: '/tmp/step',
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
    });
    expect(options.extra).toEqual({
      session: {
        save_external_prepacked_constant_initializers: '1',
        intra_op: { allow_spinning: '1' },
        force_spinning_stop: '1',
      },
    });
  });
});

import { describe, expect, it, vi } from 'vitest';
import { boundSessionConfigOf } from '../../../../../src-main/runtime/slot-worker/ort-binding/bound-session-config';

describe('boundSessionConfigOf', () => {
  it('builds the C API session from the options onnxruntime-node sessions get', () => {
    const config = boundSessionConfigOf({
      numThreads: 3,
      canSpinThreads: true,
      graphOptimizationLevel: 'basic',
      sessionConfig: { disable_prepacking: '1' },
    });
    expect(config).toEqual({
      intraOpNumThreads: 3,
      interOpNumThreads: 1,
      graphOptimizationLevel: 1,
      logSeverityLevel: 3,
      configEntries: [
        ['session.disable_prepacking', '1'],
        ['session.intra_op.allow_spinning', '1'],
        ['session.force_spinning_stop', '1'],
      ],
      groupedAttention: true,
    });
  });

  it('runs ONNX Runtime’s own attention kernel when FF_GROUPED_ATTENTION=off (the A/B switch)', () => {
    vi.stubEnv('FF_GROUPED_ATTENTION', 'off');
    try {
      expect(boundSessionConfigOf({ numThreads: 1, canSpinThreads: false }).groupedAttention).toBe(false);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('refuses a provider other than cpu (the caller keeps onnxruntime-node)', () => {
    expect(() => boundSessionConfigOf({ numThreads: 1, canSpinThreads: false, provider: 'webgpu' })).toThrow(
      /cpu/,
    );
  });
});

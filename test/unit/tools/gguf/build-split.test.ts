import { describe, expect, it } from 'vitest';
import { buildSplitOf } from '../../../../tools/gguf/build-split';

/** The lines of a verbose ONNX Runtime build that the split reads, at the given seconds past 10:00:00. */
const LOG = [
  ['00.000', '[I:onnxruntime:, inference_session.cc:764 TraceSessionOptions] Session Options { }'],
  ['00.070', '[I:onnxruntime:, inference_session.cc:2610 Initialize] Initializing session.'],
  [
    '00.100',
    '[V:onnxruntime:, graph_transformer_mgr.cc:55 ApplyTransformers] Applying graph transformer ConstantFolding on step 1.',
  ],
  [
    '03.400',
    '[I:onnxruntime:, graph_transformer.cc:15 Apply] GraphTransformer ConstantFolding modified: 1 with status: OK',
  ],
  [
    '03.410',
    '[V:onnxruntime:, graph_transformer_mgr.cc:55 ApplyTransformers] Applying graph transformer ConstantFolding on step 2.',
  ],
  [
    '03.420',
    '[I:onnxruntime:, graph_transformer.cc:15 Apply] GraphTransformer ConstantFolding modified: 0 with status: OK',
  ],
  ['03.500', '[V:onnxruntime:, session_state.cc:232 CreateGraphInfo] Done saving OrtValue mappings.'],
  [
    '03.600',
    '[I:onnxruntime:, session_state_utils.cc:263 SaveInitializedTensors] Saving initialized tensors.',
  ],
  [
    '03.610',
    '[I:onnxruntime:, session_state_utils.cc:463 SaveInitializedTensors] Done saving initialized tensors',
  ],
  ['07.610', '[I:onnxruntime:, inference_session.cc:3094 Initialize] Session successfully initialized.'],
]
  .map(([seconds, text]) => `2026-12-06 10:00:${seconds}123456 ${text}`)
  .join('\n');

describe('buildSplitOf', () => {
  it('splits a build by the log’s timestamps, summing every folding pass', () => {
    const split = buildSplitOf(`not a log line\n${LOG}\n{"buildMs":7610}`);
    expect(split.loadMs).toBeCloseTo(70, 3);
    expect(split.foldMs).toBeCloseTo(3310, 3);
    expect(split.otherPassesMs).toBeCloseTo(3530 - 3310, 3);
    expect(split.initializersMs).toBeCloseTo(10, 3);
    expect(split.prepackMs).toBeCloseTo(4000, 3);
  });

  it('leaves a part it has no lines for null', () => {
    const split = buildSplitOf(LOG.split('\n').slice(0, 4).join('\n'));
    expect(split.foldMs).toBeCloseTo(3300, 3);
    expect(split.prepackMs).toBeNull();
    expect(split.otherPassesMs).toBeNull();
  });
});

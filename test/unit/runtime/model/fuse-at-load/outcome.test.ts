import { describe, expect, it } from 'vitest';
import { describeFusion, detailFusion } from '../../../../../src-main/runtime/model/fuse-at-load/outcome';
import type { FusionOutcome } from '../../../../../src-main/runtime/model/fuse-at-load/outcome';

const agreement = { numCompared: 12, numEqual: 12, maxLogitDiff: 2e-5, isExact: true };

describe("the slot card's words for what load-time fusion did", () => {
  it('says which graph runs, and why the exported one does when it does', () => {
    const cases: Array<[FusionOutcome, string]> = [
      [
        {
          status: 'fused',
          nodesPerLayer: 10,
          stepNodes: { original: 95, fused: 29 },
          agreement,
          isFromCache: false,
        },
        'fused at load',
      ],
      [
        {
          status: 'as-exported',
          part: 'layers.0.input_layernorm',
          reason: 'it is a LayerNormalization (mean-subtracting), not an RMSNorm',
          agreement: null,
          isFromCache: false,
        },
        'as exported — layers.0.input_layernorm did not fuse: it is a LayerNormalization (mean-subtracting), not an RMSNorm',
      ],
      [
        {
          status: 'as-exported',
          part: 'check',
          reason:
            'its greedy ids differ at 3 of 12 positions with float32 weights (max logit difference 1.2)',
          agreement: { ...agreement, numEqual: 9 },
          isFromCache: false,
        },
        'as exported — the fused graph failed its check against it: its greedy ids differ at 3 of 12 positions with float32 weights (max logit difference 1.2)',
      ],
      [
        { status: 'already-fused', reason: "it already runs ONNX Runtime's GroupQueryAttention" },
        'already fused',
      ],
      [
        { status: 'off', reason: 'fusion at load is off in Settings' },
        'as exported — fusion at load is off in Settings',
      ],
    ];
    for (const [outcome, words] of cases) expect(describeFusion(outcome)).toBe(words);
  });

  it("details a fused graph's check and whether the load cache answered", () => {
    const fused: FusionOutcome = {
      status: 'fused',
      nodesPerLayer: 10,
      stepNodes: null,
      agreement,
      isFromCache: true,
    };
    expect(detailFusion(fused)).toBe(
      '10 graph nodes per layer; checked against the exported graph: 12 of 12 greedy tokens the same (float32 weights: all must be); rewritten and checked on an earlier load, read from the load cache',
    );
  });
});

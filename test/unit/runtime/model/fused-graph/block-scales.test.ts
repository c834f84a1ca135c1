import * as ort from 'onnxruntime-node';
import onnxProto from 'onnx-proto';
import { describe, expect, it } from 'vitest';
import { GraphBuilder } from '../../../../../src-main/runtime/model/fused-graph/graph-builder';
import { FUSED_OPSET } from '../../../../../src-main/runtime/model/fused-graph/write-fused-decoder';
import {
  addBlockOffsetsMatrix,
  addBlockScales,
} from '../../../../../src-main/runtime/model/fused-graph/block-scales';
import { hasOffsets } from '../../../../../src-main/runtime/model/fused-graph/block-offsets';
import { toMatMulBlocks } from '../../../../../src-main/runtime/model/gguf/to-matmul-blocks';
import { llamaFfi, peersSkipReason } from '../../../../support/llama-peers';

const TYPES = ['Q4_0', 'Q4_1', 'Q5_0', 'Q5_1', 'Q8_0', 'Q2_K', 'Q3_K', 'Q4_K', 'Q5_K', 'Q6_K'];
const NUM_ROWS = 4;
const NUM_COLS = 512;
const VALUES = new Float32Array(NUM_ROWS * NUM_COLS).map(
  (_, i) => Math.sin(i * 0.37) * (1 + (i % 97) / 50) + 0.1,
);

/** The graph's widened scales and offsets matrix, run in ONNX Runtime (constants only: folded at build). */
async function widened(type: string) {
  const bytes = llamaFfi!.quantize(type, VALUES, NUM_ROWS, NUM_COLS);
  const weight = toMatMulBlocks(type, bytes, NUM_ROWS, NUM_COLS);
  const builder = new GraphBuilder();
  builder.addInput('unused', 'float32', [1]);
  const scales = builder.op('Identity', [addBlockScales(builder, 'w', weight)], {}, 'scales');
  builder.addOutput(scales, 'float32', [NUM_ROWS, 'blocks']);
  if (hasOffsets(weight)) {
    const offsets = builder.op('Identity', [addBlockOffsetsMatrix(builder, 'w', weight)], {}, 'offsets');
    builder.addOutput(offsets, 'float32', ['blocks', NUM_ROWS]);
  }
  const model = builder.encodeModel('scales', FUSED_OPSET);
  const initializers = onnxProto.onnx.ModelProto.decode(model).graph?.initializer ?? [];
  const storedBytes = initializers.reduce((sum, t) => sum + (t.rawData?.length ?? 0), 0);
  const session = await ort.InferenceSession.create(model, {
    logSeverityLevel: 3,
  });
  try {
    const out = await session.run({ unused: new ort.Tensor('float32', new Float32Array(1), [1]) });
    return { weight, storedBytes, out: out as Record<string, ort.Tensor> };
  } finally {
    await session.release();
  }
}

describe.skipIf(peersSkipReason !== null)('factored block scales against their float32 values', () => {
  it.each(TYPES)(
    '%s: the narrow scales and offsets widen in the graph to exactly the float32 ones',
    async (type) => {
      const { weight, storedBytes, out } = await widened(type);
      expect(weight.factored).toBeTruthy();
      expect(out.scales!.data).toEqual(weight.scales);
      const float32Bytes = weight.scales.byteLength * (weight.offsets ? 2 : 1);
      expect(storedBytes).toBeLessThan(float32Bytes / 2 + 64);
      if (!hasOffsets(weight)) return;
      const numBlocks = weight.scales.length / NUM_ROWS;
      const byColumn = new Float32Array(numBlocks * NUM_ROWS);
      for (let row = 0; row < NUM_ROWS; row++)
        for (let block = 0; block < numBlocks; block++)
          byColumn[block * NUM_ROWS + row] = weight.offsets[row * numBlocks + block]! * weight.blockSize;
      expect(out.offsets!.data).toEqual(byColumn);
    },
  );
});

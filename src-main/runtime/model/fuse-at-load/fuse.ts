import { WeightSetError } from '../fused-graph/check-weight-set';
import { writeFusedDecoder } from '../fused-graph/write-fused-decoder';
import { readModelView } from '../onnx-graph/graph-view';
import type { ExternalBytes } from '../onnx-graph/tensor-view';
import { recognizeDecoder } from './recognize';
import type { Recognition, RecognizeHints } from './recognize';

/**
 * A loaded decoder after load-time fusion: the fused graph's bytes (with its node count per
 * layer, and whether its weights and K/V are all float32), or why it stays as exported.
 */
export type FusedDecoder =
  | { kind: 'fused'; bytes: Uint8Array; nodesPerLayer: number; numNodes: number; isExact: boolean }
  | Exclude<Recognition, { kind: 'fusable' }>;

/**
 * Recognizes a decoder graph and writes its fused form (device-free). Float weights keep their
 * storage (fp16 stays fp16 behind a Cast ONNX Runtime folds); blocks keep their bytes and the
 * MatMulNBits accuracy level the graph used.
 */
export function fuseDecoder(
  bytes: Uint8Array,
  externalData: readonly ExternalBytes[],
  hints: RecognizeHints,
): FusedDecoder {
  const recognition = recognizeDecoder(bytes, externalData, hints);
  if (recognition.kind !== 'fusable') return recognition;
  let fused: Uint8Array;
  try {
    fused = writeFusedDecoder(recognition.set, {
      accuracyLevel: recognition.accuracyLevel,
      floatStorage: 'as-given',
      producer: 'first-frame fuse-at-load',
    });
  } catch (error) {
    if (error instanceof WeightSetError)
      return { kind: 'refused', part: error.weight, reason: error.message };
    throw error;
  }
  const { nodes } = readModelView(fused).graph;
  const nodesPerLayer = nodes.filter((node) => node.name.startsWith('/model/layers.0/')).length;
  return { kind: 'fused', bytes: fused, nodesPerLayer, numNodes: nodes.length, isExact: recognition.isExact };
}

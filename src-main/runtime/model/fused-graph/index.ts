export { checkWeightSet, WeightSetError } from './check-weight-set';
export { FUSED_INPUTS, FUSED_OPSET, writeFusedDecoder } from './write-fused-decoder';
export type { FusedGraphOptions } from './write-fused-decoder';
export { rotaryCaches, ropeInverseFrequencies, scaledInverseFrequencies } from './rope';
export type {
  BlockWeight,
  DecoderDims,
  DecoderLayerWeights,
  DecoderWeightSet,
  FloatData,
  FloatWeight,
  MatrixWeight,
  RopeScaling,
} from './weight-set';
export { quantizeWeightSet } from './quantize-weight-set';
export type { QuantizedWeightSet, WeightSetQuantization } from './quantize-weight-set';
export { blockDequantize, blockQuantize, checkBlockSize } from './block-quantize';
export type { BlockQuantized, QuantBits, QuantScheme } from './block-quantize';
export { GraphBuilder, MS_DOMAIN, ONNX_TYPE_CODE } from './graph-builder';
export type { Attributes, Dim, ElementType } from './graph-builder';
export { outInBits, transposeInto } from './float-matrix';
export type { FloatStorage, MatrixBits } from './float-matrix';

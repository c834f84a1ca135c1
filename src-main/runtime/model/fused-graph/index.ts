export { checkWeightSet, WeightSetError } from './check-weight-set';
export { FUSED_INPUTS, FUSED_OPSET, writeFusedDecoder, writeFusedDecoderFiles } from './write-fused-decoder';
export type { FusedGraphFiles, FusedGraphOptions } from './write-fused-decoder';
export { streamOf } from './weight-set';
export { ATTENTION_MASK, FUSED_OPS, fusedIoOf } from './fused-io';
export type { AttentionInputs, FusedIoTensor } from './fused-io';
export { EXTERNAL_DATA_ALIGNMENT } from './external-data';
export type {
  BlockWeight,
  FactoredScales,
  DecoderDims,
  DecoderLayerWeights,
  DecoderWeightSet,
  FloatData,
  FloatWeight,
  MatrixWeight,
  StreamedWeightSet,
} from './weight-set';
export { quantizeWeightSet } from './quantize-weight-set';
export type { QuantizedWeightSet, WeightSetQuantization } from './quantize-weight-set';
export { blockDequantize, blockQuantize, checkBlockSize } from './block-quantize';
export type { BlockQuantized, QuantBits, QuantScheme } from './block-quantize';
export { GraphBuilder, MIN_EXTERNAL_BYTES, MS_DOMAIN, ONNX_TYPE_CODE } from './graph-builder';
export type { Attributes, Dim, ElementType, ExternalDataSink } from './graph-builder';
export { outInBits, transposeInto } from './float-matrix';
export type { FloatStorage, MatrixBits } from './float-matrix';

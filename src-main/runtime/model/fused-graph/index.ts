export { checkWeightSet, WeightSetError } from './check-weight-set';
export { writeFusedDecoder } from './write-fused-decoder';
export type { FusedGraphOptions } from './write-fused-decoder';
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

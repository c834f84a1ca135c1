/**
 * Operators ONNX Runtime's CPU provider runs, by domain. A graph using anything else is listed
 * as broken ("unknown op") instead of failing when its slot loads. Sources: the default and
 * ai.onnx.ml domains are ONNX's operator schemas (onnx 1.12's `get_all_schemas_with_history`,
 * plus the operators opsets 18–24 added); com.microsoft is onnxruntime's CPU contrib kernel
 * registry (`contrib_ops/cpu/cpu_contrib_kernels.cc`); the default-domain extras are the
 * experimental operators onnxruntime still registers there.
 */
const DEFAULT_DOMAIN = `Abs Acos Acosh Add And ArgMax ArgMin Asin Asinh Atan Atanh AveragePool BatchNormalization
Bernoulli BitShift BlackmanWindow Cast CastLike Ceil Celu Clip Compress Concat ConcatFromSequence Constant
ConstantOfShape Conv ConvInteger ConvTranspose Cos Cosh CumSum DFT DepthToSpace DequantizeLinear Det Div
Dropout DynamicQuantizeLinear Einsum Elu Equal Erf Exp Expand EyeLike Flatten Floor GRU Gather GatherElements
GatherND Gemm GlobalAveragePool GlobalLpPool GlobalMaxPool Greater GreaterOrEqual GridSample HammingWindow
HannWindow HardSigmoid HardSwish Hardmax Identity If InstanceNormalization IsInf IsNaN LRN LSTM
LayerNormalization LeakyRelu Less LessOrEqual Log LogSoftmax Loop LpNormalization LpPool MatMul MatMulInteger
Max MaxPool MaxRoiPool MaxUnpool Mean MeanVarianceNormalization MelWeightMatrix Min Mod Mul Multinomial Neg
NegativeLogLikelihoodLoss NonMaxSuppression NonZero Not OneHot Optional OptionalGetElement OptionalHasElement
Or PRelu Pad Pow QLinearConv QLinearMatMul QuantizeLinear RNN RandomNormal RandomNormalLike RandomUniform
RandomUniformLike Range Reciprocal ReduceL1 ReduceL2 ReduceLogSum ReduceLogSumExp ReduceMax ReduceMean
ReduceMin ReduceProd ReduceSum ReduceSumSquare Relu Reshape Resize ReverseSequence RoiAlign Round STFT Scan
Scatter ScatterElements ScatterND Selu SequenceAt SequenceConstruct SequenceEmpty SequenceErase
SequenceInsert SequenceLength SequenceMap Shape Shrink Sigmoid Sign Sin Sinh Size Slice Softmax
SoftmaxCrossEntropyLoss Softplus Softsign SpaceToDepth Split SplitToSequence Sqrt Squeeze StringNormalizer
Sub Sum Tan Tanh TfIdfVectorizer ThresholdedRelu Tile TopK Transpose Trilu Unique Unsqueeze Upsample Where
Xor
BitwiseAnd BitwiseNot BitwiseOr BitwiseXor CenterCropPad Col2Im GroupNormalization Mish DeformConv
AffineGrid Gelu ImageDecoder RegexFullMatch StringConcat StringSplit Attention RMSNormalization
RotaryEmbedding Swish TensorScatter
Affine Crop DynamicSlice ImageScaler ParametricSoftplus ScaledTanh Scale SimplifiedLayerNormalization`;

const ML_DOMAIN = `ArrayFeatureExtractor Binarizer CastMap CategoryMapper DictVectorizer FeatureVectorizer Imputer
LabelEncoder LinearClassifier LinearRegressor Normalizer OneHotEncoder SVMClassifier SVMRegressor Scaler
TreeEnsemble TreeEnsembleClassifier TreeEnsembleRegressor ZipMap`;

const MICROSOFT_DOMAIN = `SampleOp GridSample Attention BeamSearch WhisperBeamSearch EmbedLayerNormalization
ExpandDims FusedConv FusedGemm GreedySearch MultiHeadAttention GroupQueryAttention SparseAttention
RotaryEmbedding Sampling AttnLSTM Tokenizer Range WordConvEmbedding GatherND TransposeMatMul FusedMatMul
MatMulNBits MatMulBnb4 GatherBlockQuantized MatMulFpQ4 SparseToDenseMatMul MurmurHash3 MaxpoolWithMask Pad
Unique ConvTransposeWithDynamicPads CropAndResize CDist Gelu BiasGelu FastGelu NGramRepeatBlock
BifurcationDetector QuickGelu DecoderMaskedMultiHeadAttention MatMulInteger16 QLinearGlobalAveragePool
QLinearConcat QLinearWhere QLinearAveragePool DequantizeLinear QuantizeLinear QLinearLeakyRelu
QLinearSigmoid QLinearSoftmax QLinearAdd QLinearMul QAttention DynamicQuantizeMatMul DynamicQuantizeLSTM
MatMulIntegerToFloat QLinearConv NhwcMaxPool QEmbedLayerNormalization QGemm SkipLayerNormalization
SkipSimplifiedLayerNormalization Inverse Trilu UnfoldTensor DynamicTimeWarping`;

const words = (text: string) => new Set(text.split(/\s+/).filter(Boolean));

/** Operator names by domain ('' is the default ONNX domain). */
export const KNOWN_OPS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['', words(DEFAULT_DOMAIN)],
  ['ai.onnx.ml', words(ML_DOMAIN)],
  ['com.microsoft', words(MICROSOFT_DOMAIN)],
]);

/** Why an operator cannot run here, or null when it can. */
export function unknownOpReason(domain: string, opType: string): string | null {
  const known = KNOWN_OPS.get(domain);
  if (!known)
    return `uses operator ${opType} from domain "${domain}", which ONNX Runtime's CPU provider does not have`;
  if (!known.has(opType))
    return `uses unknown operator ${domain ? `${domain}.` : ''}${opType} (not an ONNX Runtime CPU operator)`;
  return null;
}

// Public surface of onnx-llama: other code imports only from this file.

export { LlamaConfigError, TINY_SHAPE, llamaDims, makeLlamaConfig, validateLlamaConfig } from './config';
export type { LlamaConfig, LlamaDims, LlamaShape } from './config';
export { buildLlamaOnnx, LLAMA_OPSET } from './llama-graph';
export type { BuildLlamaOptions } from './llama-graph';
export { MASK_NEGATIVE } from './graph-shared';
export { ropeInverseFrequencies } from '../../src-main/runtime/model/rope';
export { randomLlamaWeights } from './random-weights';
export type { RandomWeightsOptions } from './random-weights';
export { encodeSafetensors, parseSafetensors, readSafetensors, writeSafetensors } from './safetensors';
export type { SafetensorsContents, SafetensorsDtype } from './safetensors';
export { readTokenizerInfo } from './tokenizer-files';
export type { TokenizerInfo } from './tokenizer-files';
export type { WeightDtype } from './weight-initializers';
export { checkWeightsMatchConfig, countParameters, expectedWeightShapes, withHfPrefixes } from './weights';
export type { LlamaWeights, NamedTensor } from './weights';
export { writeModelFolder } from './write-model-folder';
export type { ModelFolderSpec, WrittenFile } from './write-model-folder';
export { buildGraph, convertSafetensors, RANDOM_PRESETS, writeRandomModel } from './model-jobs';
export type { GraphForm, ModelJobResult } from './model-jobs';
export { llamaWeightsOfModel, readOnnxLlamaWeights } from './read-weights';
export { decoderDimsOf, hfWeightsOf, weightSetOf } from './weight-set';

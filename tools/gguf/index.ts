// Public surface of the GGUF writer: other code imports only from this file.

export { ensureGguf } from './cached';
export type { CachedGguf } from './cached';
export { convertFolderToGguf } from './convert';
export type { GgufConversion } from './convert';
export { GGML_TYPE, GGUF_ALIGNMENT, writeGguf } from './gguf-file';
export type { GgmlTypeName, GgufTensor, GgufValue } from './gguf-file';
export { llamaMetadata, tokenizerMetadata } from './llama-metadata';
export { llamaTensors, permuteForRope } from './llama-tensors';
export type { GgufArchitecture, GgufWeightType } from './llama-tensors';
export { BLOCK_SIZE, encodeTensor, typeBytes } from './quantize';

export { loadModelFolder, MODEL_FILES } from './load-folder';
export type { FolderVariant, ModelFolder } from './load-folder';
export { ModelFolderError } from './model-folder-error';
export { findEntry, ModelCatalogue, refusalOf } from './catalogue';
export type { CatalogueDiscovery, CatalogueEntry, CatalogueModel } from './catalogue';
export { defaultDiscoveryEnvironment } from './discovery';
export type { DiscoveryEnvironment, PlaceState, SourceFacts } from './discovery';
export { DISCOVERED_SOURCES, isDiscoveredSource, MODEL_SOURCE_LABELS, MODEL_SOURCES } from './model-sources';
export type { DiscoveredSource, ModelSource } from './model-sources';
export { RevisionCache, layoutRevisionOf, sha256 } from './revisions';
export type { ContentRevisions } from './revisions';
export { encodesInline, TextTokenizer } from './tokenizer';
export { rawPrompt } from './chat-literals';
export type { PromptText } from './chat-literals';
export { readTokenizerFiles, TOKENIZER_FILES } from './tokenizer-files';
export type { DefaultSampling } from './genai/genai-config';
export type { ChatInput, ChatTurn } from './tokenizer';
export { shapeOf } from './config';
export type { ModelConfig, ModelShape } from './config';
export { ChatTemplate, TemplateError, TEMPLATE_LIMITS } from './chat-template';
export { fedInputsOf, missingIoOf } from './decoder-io';
export type { DecoderIo, FedInputs, FloatType, KvRowAlignment } from './decoder-io';
export type { ExternalDataFile, VariantGraph } from './inspect-variant';
export { VARIANT_FILES, VARIANT_NAMES, isRefTo, modelRefOf, parseModelRef } from './variants';
export type { VariantName } from './variants';
export { KEEP_INPUT, keepLastLogits } from './onnx-graph/keep-last-logits';
export { addPresentDeltas, deltaNameOf, NEW_COLUMN_INDEX } from './onnx-graph/present-deltas';
export {
  GRAPH_IO,
  kvNamesOf,
  LENGTH_INPUTS,
  LOGITS_TO_KEEP_INPUTS,
  pastName,
  pastOf,
  presentName,
} from './graph-io-names';
export type { KvKind } from './graph-io-names';
export type { PresentDeltas } from './onnx-graph/present-deltas';
export { GRAPH_REWRITE_FORM, rewriteForSlot } from './onnx-graph/rewrite-for-slot';
export type { SlotRewrite } from './onnx-graph/rewrite-for-slot';
export type { KeepLastLogits, KeepPlacement } from './onnx-graph/keep-last-logits';
export { BYTES_PER_ELEMENT, kvGeometryOf, pageBytes, pageElements } from './kv-geometry';
export { readGraphSummary } from './onnx-graph/read-graph';
export type { GraphSummary } from './onnx-graph/read-graph';
export type { KvGeometry } from './kv-geometry';
export { LOADABLE_FORMATS } from './formats';
export { prepareGguf } from './gguf/prepare-gguf';
export { weightsOriginOf } from './gguf/gguf-folder';
export type { GgufConversion } from './gguf/gguf-listing';
export { readGgufSet } from './gguf/gguf-files';
export { tokenizerFilesOfGguf } from './gguf/gguf-tokenizer';

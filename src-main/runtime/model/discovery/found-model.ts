import type { DefaultSampling } from '../genai/genai-config';
import type { ModelSource } from '../model-sources';

/**
 * What the place a model was found in says about it beyond its own files: Ollama's parameters
 * (as default sampling), its chat template (Go text/template, not Jinja) and system prompt.
 */
export interface SourceFacts {
  defaultSampling: DefaultSampling | null;
  /** The store's own chat template text (Ollama: Go text/template), or null. */
  template: string | null;
  /** The store's default system prompt (Ollama's `system` layer), or null. */
  systemPrompt: string | null;
}

/** A model found in a folder the catalogue reads: a model folder or a GGUF file (a split set by its first shard). */
export interface FoundModel {
  source: ModelSource;
  /** The name it is listed under (the catalogue prefixes it when another model has it). */
  name: string;
  path: string;
  kind: 'folder' | 'gguf';
  /** What messages call the file: its name, or `model blob sha256-…` for an Ollama blob. */
  label: string;
  facts: SourceFacts | null;
  /** Why the store's record of it cannot be used (a missing blob, an adapter), or null. */
  problem: string | null;
}

// Real models' shapes, for GGUF files of random weights at the size people actually run: the
// hyperparameters and vocabulary size of the published configs, the special tokens their chat
// templates use. Nothing of the models themselves (weights, merges) is here or downloaded.

import type { LlamaConfig } from '../onnx-llama/config';
import type { GgufArchitecture } from './llama-tensors';

/** One real model's shape and the tokens its chat template needs. */
export interface RandomShape {
  architecture: GgufArchitecture;
  config: LlamaConfig;
  /** llama.cpp's `tokenizer.ggml.pre` for the model's pre-tokenizer. */
  preTokenizer: string;
  /** Control tokens by id (the chat template's markers, end of text). */
  specials: ReadonlyMap<number, string>;
  eosTokenId: number;
  chatTemplate: string;
  /** Whether each layer carries q/k/v projection biases (Qwen2). */
  hasQkvBias: boolean;
}

const LLAMA3_TEMPLATE =
  "{% for message in messages %}{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + message['content'] + '<|eot_id|>' }}{% endfor %}{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}";
const CHATML_TEMPLATE =
  "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

const LLAMA3_SPECIALS = new Map([
  [128000, '<|begin_of_text|>'],
  [128001, '<|end_of_text|>'],
  [128006, '<|start_header_id|>'],
  [128007, '<|end_header_id|>'],
  [128009, '<|eot_id|>'],
]);

/** Llama 3.x's config fields the shapes share. */
function llama3Config(fields: Partial<LlamaConfig>): LlamaConfig {
  return {
    model_type: 'llama',
    architectures: ['LlamaForCausalLM'],
    vocab_size: 128256,
    hidden_size: 2048,
    intermediate_size: 8192,
    num_hidden_layers: 16,
    num_attention_heads: 32,
    num_key_value_heads: 8,
    head_dim: 64,
    max_position_embeddings: 131072,
    rms_norm_eps: 1e-5,
    rope_theta: 500000,
    tie_word_embeddings: true,
    bos_token_id: 128000,
    eos_token_id: 128009,
    ...fields,
  };
}

const llama3 = (config: LlamaConfig): RandomShape => ({
  architecture: 'llama',
  config,
  preTokenizer: 'llama-bpe',
  specials: LLAMA3_SPECIALS,
  eosTokenId: 128009,
  chatTemplate: LLAMA3_TEMPLATE,
  hasQkvBias: false,
});

/** The shapes `cli.ts random --shape` offers, by name. */
export const RANDOM_SHAPES = {
  'llama-3.2-1b': llama3(llama3Config({})),
  'llama-3.1-8b': llama3(
    llama3Config({
      hidden_size: 4096,
      intermediate_size: 14336,
      num_hidden_layers: 32,
      head_dim: 128,
      tie_word_embeddings: false,
    }),
  ),
  'qwen2.5-1.5b': {
    architecture: 'qwen2',
    config: {
      model_type: 'llama',
      architectures: ['Qwen2ForCausalLM'],
      vocab_size: 151936,
      hidden_size: 1536,
      intermediate_size: 8960,
      num_hidden_layers: 28,
      num_attention_heads: 12,
      num_key_value_heads: 2,
      head_dim: 128,
      max_position_embeddings: 32768,
      rms_norm_eps: 1e-6,
      rope_theta: 1000000,
      tie_word_embeddings: true,
      eos_token_id: 151645,
    },
    preTokenizer: 'qwen2',
    specials: new Map([
      [151643, '<|endoftext|>'],
      [151644, '<|im_start|>'],
      [151645, '<|im_end|>'],
    ]),
    eosTokenId: 151645,
    chatTemplate: CHATML_TEMPLATE,
    hasQkvBias: true,
  },
} satisfies Record<string, RandomShape>;

/** A shape's name as `--shape` takes it. */
export type RandomShapeName = keyof typeof RANDOM_SHAPES;

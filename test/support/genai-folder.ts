/**
 * An onnxruntime-genai folder as its model builder lays one out (builders/base.py): the decoder
 * `model.onnx` with every initializer in `model.onnx.data`, genai_config.json (decoder file, I/O
 * name maps, geometry, special ids, `search`), the tokenizer files `save_pretrained` writes, and
 * no config.json. Made from the bundled model's block-quantized weights in the builder's own
 * graph form: GroupQueryAttention fed an attention_mask (no position_ids), MatMulNBits.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import onnxProto from 'onnx-proto';
import { writeFusedDecoder } from '../../src-main/runtime/model/fused-graph/write-fused-decoder';
import { validateLlamaConfig } from '../../tools/onnx-llama/config';
import { decoderDimsOf } from '../../tools/onnx-llama/weight-set';
import { readFusedWeightSet } from '../../tools/onnx-llama/read-fused';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from './models';

const { onnx } = onnxProto;
const SOURCE = path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID);

/** The genai_config.json the builder would write for the bundled model (edit it through `change`). */
export function genaiConfigOfBundled(): Record<string, unknown> {
  const config = JSON.parse(readFileSync(path.join(SOURCE, 'config.json'), 'utf8')) as Record<string, never>;
  return {
    model: {
      bos_token_id: config['bos_token_id'],
      context_length: config['max_position_embeddings'],
      decoder: {
        session_options: { log_id: 'onnxruntime-genai', provider_options: [] },
        filename: 'model.onnx',
        head_size: config['head_dim'],
        hidden_size: config['hidden_size'],
        inputs: {
          input_ids: 'input_ids',
          attention_mask: 'attention_mask',
          past_key_names: 'past_key_values.%d.key',
          past_value_names: 'past_key_values.%d.value',
        },
        outputs: {
          logits: 'logits',
          present_key_names: 'present.%d.key',
          present_value_names: 'present.%d.value',
        },
        num_attention_heads: config['num_attention_heads'],
        num_hidden_layers: config['num_hidden_layers'],
        num_key_value_heads: config['num_key_value_heads'],
      },
      eos_token_id: config['eos_token_id'],
      pad_token_id: config['pad_token_id'],
      type: 'llama',
      vocab_size: config['vocab_size'],
    },
    search: {
      diversity_penalty: 0.0,
      do_sample: true,
      early_stopping: true,
      length_penalty: 1.0,
      max_length: config['max_position_embeddings'],
      min_length: 0,
      no_repeat_ngram_size: 0,
      num_beams: 1,
      num_return_sequences: 1,
      past_present_share_buffer: false,
      repetition_penalty: 1.0,
      temperature: 0.7,
      top_k: 40,
      top_p: 0.9,
    },
  };
}

/** Writes the folder at `outDir`; `change` edits genai_config.json before it is written. */
export function writeGenaiFolder(
  outDir: string,
  change: (config: Record<string, unknown>) => void = () => {},
): void {
  mkdirSync(outDir, { recursive: true });
  const q4 = onnx.ModelProto.decode(readFileSync(path.join(SOURCE, 'onnx', 'model_q4.onnx')));
  const llama = validateLlamaConfig(JSON.parse(readFileSync(path.join(SOURCE, 'config.json'), 'utf8')));
  const weights = readFusedWeightSet(q4, decoderDimsOf(llama));
  const bytes = writeFusedDecoder(weights, {
    attentionInputs: 'attention-mask',
    producer: 'onnxruntime-genai',
  });
  const model = onnx.ModelProto.decode(bytes);
  const parts: Uint8Array[] = [];
  let offset = 0;
  for (const tensor of model.graph?.initializer ?? []) {
    const raw = tensor.rawData;
    // Weights only: the builder writes shapes as Constant nodes, and ORT 1.30 cannot shape-infer
    // through a shape initializer held in external data when building from a buffer.
    if (!raw || raw.length < 1024) continue;
    tensor.dataLocation = 1; // EXTERNAL
    tensor.externalData = [
      { key: 'location', value: 'model.onnx.data' },
      { key: 'offset', value: String(offset) },
      { key: 'length', value: String(raw.length) },
    ];
    tensor.rawData = new Uint8Array(0);
    parts.push(raw);
    offset += raw.length;
  }
  writeFileSync(path.join(outDir, 'model.onnx.data'), Buffer.concat(parts));
  writeFileSync(path.join(outDir, 'model.onnx'), onnx.ModelProto.encode(model).finish());
  const config = genaiConfigOfBundled();
  change(config);
  writeFileSync(path.join(outDir, 'genai_config.json'), JSON.stringify(config, null, 4));
  copyFileSync(path.join(SOURCE, 'tokenizer.json'), path.join(outDir, 'tokenizer.json'));
  const tokenizerConfig = JSON.parse(
    readFileSync(path.join(SOURCE, 'tokenizer_config.json'), 'utf8'),
  ) as Record<string, unknown>;
  const specialTokens = { bos_token: tokenizerConfig['bos_token'], eos_token: tokenizerConfig['eos_token'] };
  // save_pretrained's split: special tokens in their own map, the rest (and the template) in the config.
  delete tokenizerConfig['bos_token'];
  delete tokenizerConfig['eos_token'];
  writeFileSync(path.join(outDir, 'tokenizer_config.json'), JSON.stringify(tokenizerConfig, null, 2));
  writeFileSync(path.join(outDir, 'special_tokens_map.json'), JSON.stringify(specialTokens, null, 2));
}

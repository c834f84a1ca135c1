/**
 * A GGUF with a SentencePiece tokenizer (`tokenizer.ggml.model = llama`), as llama.cpp's converter
 * writes for Llama 2 / Mistral / TinyLlama: `<unk>`, `<s>`, `</s>`, control tokens, 256 byte
 * tokens `<0xNN>`, then pieces with "▁" for spaces ranked by score. Nothing is downloaded: the
 * pieces are the bundled byte-level BPE vocabulary's, decoded to text (every character of a piece
 * is a piece too, as SentencePiece's character coverage makes it), the weights the bundled model's.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readOnnxLlamaWeights, validateLlamaConfig } from '../../tools/onnx-llama';
import { llamaMetadata, llamaTensors, writeGguf } from '../../tools/gguf';
import type { GgufValue } from '../../tools/gguf';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from './models';

/** llama.cpp token types (LLAMA_TOKEN_TYPE_*). */
const TYPE = { normal: 1, unknown: 2, control: 3, unused: 5, byte: 6 } as const;

/** GPT-2's byte ↔ printable-character table, inverted: character → byte. */
function byteOfChar(): Map<string, number> {
  const printable: number[] = [];
  for (let b = 33; b <= 126; b++) printable.push(b);
  for (let b = 161; b <= 172; b++) printable.push(b);
  for (let b = 174; b <= 255; b++) printable.push(b);
  const map = new Map<string, number>();
  let next = 256;
  for (let b = 0; b < 256; b++) map.set(String.fromCodePoint(printable.includes(b) ? b : next++), b);
  return map;
}

/** The bundled BPE vocabulary's tokens as SentencePiece pieces (text, spaces as "▁"), in rank order. */
function piecesOfBundled(vocab: Record<string, number>): string[] {
  const bytes = byteOfChar();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const texts: string[] = [];
  for (const [token] of Object.entries(vocab).sort((a, b) => a[1] - b[1])) {
    const raw = [...token].map((c) => bytes.get(c));
    if (raw.some((b) => b === undefined)) continue;
    try {
      texts.push(decoder.decode(Uint8Array.from(raw as number[])).replaceAll(' ', '▁'));
    } catch {
      // a partial UTF-8 sequence: SentencePiece covers it by byte fallback
    }
  }
  const characters = [...new Set(texts.flatMap((t) => [...t]))];
  return [...new Set([...characters, ...texts.filter((t) => [...t].length > 1)])];
}

/** The bundled model as an f16 llama GGUF with a SentencePiece tokenizer, written to `outPath`. */
export function sentencePieceGguf(outPath: string): string {
  const modelDir = path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID);
  const config = validateLlamaConfig(JSON.parse(readFileSync(path.join(modelDir, 'config.json'), 'utf8')));
  const tokenizer = JSON.parse(readFileSync(path.join(modelDir, 'tokenizer.json'), 'utf8')) as {
    model: { vocab: Record<string, number> };
    added_tokens: Array<{ content: string }>;
  };
  // The BPE file's special tokens are not pieces (a SentencePiece vocabulary holds them as control
  // tokens or not at all); as normal tokens llama.cpp would retype its end-of-generation lookalikes.
  for (const added of tokenizer.added_tokens) delete tokenizer.model.vocab[added.content];
  const vocabSize = config.vocab_size;
  const tokens: string[] = ['<unk>', '<s>', '</s>', '<|system|>', '<|user|>', '<|assistant|>', '<|end|>'];
  const types: number[] = [TYPE.unknown, ...tokens.slice(1).map(() => TYPE.control)];
  for (let b = 0; b < 256; b++) {
    tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
    types.push(TYPE.byte);
  }
  const numFixed = tokens.length;
  const pieces = piecesOfBundled(tokenizer.model.vocab).filter((piece) => !tokens.includes(piece));
  for (const piece of pieces.slice(0, vocabSize - numFixed)) {
    tokens.push(piece);
    types.push(TYPE.normal);
  }
  while (tokens.length < vocabSize) {
    tokens.push(`<unused${tokens.length}>`);
    types.push(TYPE.unused);
  }
  const scores = Float32Array.from(tokens, (_, id) => (id < numFixed ? 0 : -(id - numFixed)));
  const weights = readOnnxLlamaWeights(path.join(modelDir, 'onnx', 'model.onnx'), config);
  const tokenizerMetadata: Array<[string, GgufValue]> = [
    ['tokenizer.ggml.model', { type: 'string', value: 'llama' }],
    ['tokenizer.ggml.tokens', { type: 'strings', value: tokens }],
    ['tokenizer.ggml.scores', { type: 'float32s', value: scores }],
    ['tokenizer.ggml.token_type', { type: 'int32s', value: Int32Array.from(types) }],
    ['tokenizer.ggml.bos_token_id', { type: 'uint32', value: 1 }],
    ['tokenizer.ggml.eos_token_id', { type: 'uint32', value: 2 }],
    ['tokenizer.ggml.unknown_token_id', { type: 'uint32', value: 0 }],
    ['tokenizer.ggml.add_bos_token', { type: 'bool', value: true }],
  ];
  writeGguf(
    outPath,
    [...llamaMetadata(config, `${BUNDLED_MODEL_ID}-spm`, 'f16'), ...tokenizerMetadata],
    llamaTensors(config, weights, 'f16'),
  );
  return outPath;
}

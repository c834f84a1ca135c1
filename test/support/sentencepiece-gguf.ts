/**
 * A GGUF with a SentencePiece tokenizer (`tokenizer.ggml.model = llama`), as llama.cpp's converter
 * writes for Llama 2 / Mistral / TinyLlama: `<unk>`, `<s>`, `</s>`, control tokens, 256 byte
 * tokens `<0xNN>`, then pieces with "▁" for spaces ranked by score. Nothing is downloaded: the
 * pieces are the bundled byte-level BPE vocabulary's, decoded to text (every character of a piece
 * is a piece too, as SentencePiece's character coverage makes it), the weights the bundled model's.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { validateLlamaConfig } from '../../tools/onnx-llama/config';
import { readOnnxLlamaWeights } from '../../tools/onnx-llama/read-weights';
import { writeGguf } from '../../tools/gguf/gguf-file';
import { llamaMetadata } from '../../tools/gguf/llama-metadata';
import { llamaTensors } from '../../tools/gguf/llama-tensors';
import type { GgufValue } from '../../tools/gguf/gguf-file';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from './models';

/** llama.cpp token types (LLAMA_TOKEN_TYPE_*). */
const TYPE = { normal: 1, unknown: 2, control: 3, userDefined: 4, unused: 5, byte: 6 } as const;

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

/** What sets a SentencePiece vocabulary apart: Llama 2's (the default) or Gemma's. */
export interface SentencePieceOptions {
  /** Tokens before the byte tokens, by id: control unless `unknownId` names one. */
  controls: readonly string[];
  unknownId: number;
  bosId: number;
  eosId: number;
  /** User-defined tokens (Gemma's whitespace runs and markup), placed after the byte tokens. */
  userDefined: readonly string[];
  /** tokenizer.ggml.add_space_prefix (absent when undefined: llama.cpp's default, true). */
  addSpacePrefix?: boolean;
  /** tokenizer.ggml.add_bos_token (absent when undefined). */
  addBosToken?: boolean;
  /** Pads the vocabulary with unused tokens up to this many. */
  numTokens: number;
  /** Every normal piece scores the same (merges then go leftmost first), not by rank. */
  isScoringEqually?: boolean;
  /** Pieces left out (a character left out is still merged from, as SentencePiece does). */
  droppedPieces?: readonly string[];
}

/** Llama 2's layout: <unk>, <s>, </s>, then the chat markers this repo's tests use. */
export const LLAMA2_PIECES: SentencePieceOptions = {
  controls: ['<unk>', '<s>', '</s>', '<|system|>', '<|user|>', '<|assistant|>', '<|end|>'],
  unknownId: 0,
  bosId: 1,
  eosId: 2,
  userDefined: [],
  addBosToken: true,
  numTokens: 0,
};

/** Gemma's layout: <pad>, <eos>, <bos>, <unk>, turn markers, whitespace runs, no space prefix. */
export const GEMMA_PIECES: SentencePieceOptions = {
  controls: ['<pad>', '<eos>', '<bos>', '<unk>', '<mask>', '<start_of_turn>', '<end_of_turn>'],
  unknownId: 3,
  bosId: 2,
  eosId: 1,
  userDefined: ['<table>', '</table>', ...Array.from({ length: 30 }, (_, i) => '▁'.repeat(i + 2))],
  addSpacePrefix: false,
  numTokens: 0,
};

/** tokenizer.ggml.* for a SentencePiece vocabulary made of the bundled model's pieces. */
export function sentencePieceMetadata(options: SentencePieceOptions): Array<[string, GgufValue]> {
  const modelDir = path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID);
  const tokenizer = JSON.parse(readFileSync(path.join(modelDir, 'tokenizer.json'), 'utf8')) as {
    model: { vocab: Record<string, number> };
    added_tokens: Array<{ content: string }>;
  };
  // The BPE file's special tokens are not pieces (a SentencePiece vocabulary holds them as control
  // tokens or not at all); as normal tokens llama.cpp would retype its end-of-generation lookalikes.
  for (const added of tokenizer.added_tokens) delete tokenizer.model.vocab[added.content];
  const tokens = [...options.controls];
  const types: number[] = tokens.map((_, id) => (id === options.unknownId ? TYPE.unknown : TYPE.control));
  for (let b = 0; b < 256; b++) {
    tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
    types.push(TYPE.byte);
  }
  for (const token of options.userDefined) {
    tokens.push(token);
    types.push(TYPE.userDefined);
  }
  const numFixed = tokens.length;
  const dropped = new Set([...tokens, ...(options.droppedPieces ?? [])]);
  const pieces = piecesOfBundled(tokenizer.model.vocab).filter((piece) => !dropped.has(piece));
  const numPieces = options.numTokens > 0 ? options.numTokens - numFixed : pieces.length;
  for (const piece of pieces.slice(0, numPieces)) {
    tokens.push(piece);
    types.push(TYPE.normal);
  }
  while (tokens.length < options.numTokens) {
    tokens.push(`<unused${tokens.length}>`);
    types.push(TYPE.unused);
  }
  const scoreOf = (id: number) => (options.isScoringEqually ? -1 : -(id - numFixed));
  const scores = Float32Array.from(tokens, (_, id) => (id < numFixed ? 0 : scoreOf(id)));
  const flags: Array<[string, GgufValue]> = [];
  if (options.addSpacePrefix !== undefined)
    flags.push(['tokenizer.ggml.add_space_prefix', { type: 'bool', value: options.addSpacePrefix }]);
  if (options.addBosToken !== undefined)
    flags.push(['tokenizer.ggml.add_bos_token', { type: 'bool', value: options.addBosToken }]);
  return [
    ['tokenizer.ggml.model', { type: 'string', value: 'llama' }],
    ['tokenizer.ggml.tokens', { type: 'strings', value: tokens }],
    ['tokenizer.ggml.scores', { type: 'float32s', value: scores }],
    ['tokenizer.ggml.token_type', { type: 'int32s', value: Int32Array.from(types) }],
    ['tokenizer.ggml.bos_token_id', { type: 'uint32', value: options.bosId }],
    ['tokenizer.ggml.eos_token_id', { type: 'uint32', value: options.eosId }],
    ['tokenizer.ggml.unknown_token_id', { type: 'uint32', value: options.unknownId }],
    ...flags,
  ];
}

/** The bundled model as an f16 llama GGUF with a SentencePiece tokenizer, written to `outPath`. */
export function sentencePieceGguf(outPath: string): string {
  const modelDir = path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID);
  const config = validateLlamaConfig(JSON.parse(readFileSync(path.join(modelDir, 'config.json'), 'utf8')));
  const weights = readOnnxLlamaWeights(path.join(modelDir, 'onnx', 'model.onnx'), config);
  writeGguf(
    outPath,
    [
      ...llamaMetadata(config, `${BUNDLED_MODEL_ID}-spm`, 'f16'),
      ...sentencePieceMetadata({ ...LLAMA2_PIECES, numTokens: config.vocab_size }),
    ],
    llamaTensors(config, weights, 'f16'),
  );
  return outPath;
}

// A GGUF of random weights at a real model's shape (random-shapes.ts), written as f16 tensor by
// tensor and row block by row block: the f16 file of a 1B model is 2.5 GB, and the writer holds
// one block of rows (a few MB) at a time. The tokenizer is byte-level BPE with no merges (every
// byte one token), the rest of the vocabulary unused placeholders, the shape's control tokens at
// their real ids: enough for both llama.cpp and First Frame to tokenize and chat.

import { float32ToHalfInto } from '../../src-main/runtime/model/float16';
import { llamaDims } from '../onnx-llama/config';
import { writeGgufStreamed } from './gguf-file';
import type { GgufValue, StreamedGgufTensor } from './gguf-file';
import { llamaMetadata } from './llama-metadata';
import type { RandomShape } from './random-shapes';

/** Values drawn per piece handed to the writer (4 M values: 8 MB of f16). */
const PIECE_VALUES = 4 * 1024 * 1024;
/** Weights are uniform in ±WEIGHT_SCALE (a std of 0.02, Hugging Face's init). */
const WEIGHT_SCALE = 0.02 * Math.sqrt(3);

/** GPT-2's byte → printable character map, so each of the 256 bytes is one vocabulary token. */
function byteLevelAlphabet(): string[] {
  const printable = (byte: number) =>
    (byte >= 33 && byte <= 126) || (byte >= 161 && byte <= 172) || (byte >= 174 && byte <= 255);
  let next = 256;
  return Array.from({ length: 256 }, (_, byte) => String.fromCodePoint(printable(byte) ? byte : next++));
}

/** tokenizer.ggml.* for `shape`: 256 byte tokens, the control tokens, unused placeholders elsewhere. */
function tokenizerMetadata(shape: RandomShape): Array<[string, GgufValue]> {
  const vocabSize = shape.config.vocab_size;
  const tokens = Array.from({ length: vocabSize }, (_, id) => `[PAD${id}]`);
  const types = new Int32Array(vocabSize).fill(5); // LLAMA_TOKEN_TYPE_UNUSED
  const place = (id: number, text: string, type: number) => {
    tokens[id] = text;
    types[id] = type;
  };
  byteLevelAlphabet().forEach((text, id) => place(id, text, 1));
  for (const [id, text] of shape.specials) place(id, text, 3); // LLAMA_TOKEN_TYPE_CONTROL
  return [
    ['tokenizer.ggml.model', { type: 'string', value: 'gpt2' }],
    ['tokenizer.ggml.pre', { type: 'string', value: shape.preTokenizer }],
    ['tokenizer.ggml.tokens', { type: 'strings', value: tokens }],
    ['tokenizer.ggml.token_type', { type: 'int32s', value: types }],
    ['tokenizer.ggml.merges', { type: 'strings', value: [] }],
    ['tokenizer.ggml.add_bos_token', { type: 'bool', value: false }],
    ['tokenizer.ggml.eos_token_id', { type: 'uint32', value: shape.eosTokenId }],
    ['tokenizer.chat_template', { type: 'string', value: shape.chatTemplate }],
  ];
}

/** xorshift32: fast, seeded, and plenty for weights nobody reads. */
function uniformSource(seed: number): (into: Float32Array) => void {
  let state = seed >>> 0 || 1;
  return (into) => {
    for (let i = 0; i < into.length; i++) {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      into[i] = ((state >>> 0) / 2 ** 32 - 0.5) * 2 * WEIGHT_SCALE;
    }
  };
}

/** A random f16 matrix [rows, cols] (ggml ne [cols, rows]), drawn piece by piece as it is written. */
function randomMatrix(name: string, numRows: number, numCols: number, seed: number): StreamedGgufTensor {
  const numValues = numRows * numCols;
  return {
    name,
    ne: [numCols, numRows],
    type: 'f16',
    numBytes: numValues * 2,
    write(sink) {
      const draw = uniformSource(seed);
      for (let done = 0; done < numValues; done += PIECE_VALUES) {
        const values = new Float32Array(Math.min(PIECE_VALUES, numValues - done));
        draw(values);
        const half = new Uint16Array(values.length);
        float32ToHalfInto(values, half);
        sink(new Uint8Array(half.buffer));
      }
    },
  };
}

/** An f32 vector of `value` (norm weights: 1; biases: 0). */
function constantVector(name: string, length: number, value: number): StreamedGgufTensor {
  return {
    name,
    ne: [length],
    type: 'f32',
    numBytes: length * 4,
    write: (sink) => sink(new Uint8Array(new Float32Array(length).fill(value).buffer)),
  };
}

/** Every tensor llama.cpp loads for `shape`, in file order, weights f16 and norms/biases f32. */
function randomTensors(shape: RandomShape): StreamedGgufTensor[] {
  const d = llamaDims(shape.config);
  const qWidth = d.numHeads * d.headDim;
  const kvWidth = d.numKvHeads * d.headDim;
  let seed = 1;
  const matrix = (name: string, rows: number, cols: number) => randomMatrix(name, rows, cols, seed++);
  const tensors = [matrix('token_embd.weight', d.vocabSize, d.hiddenSize)];
  for (let layer = 0; layer < d.numLayers; layer++) {
    const blk = (part: string) => `blk.${layer}.${part}`;
    tensors.push(
      constantVector(blk('attn_norm.weight'), d.hiddenSize, 1),
      matrix(blk('attn_q.weight'), qWidth, d.hiddenSize),
      matrix(blk('attn_k.weight'), kvWidth, d.hiddenSize),
      matrix(blk('attn_v.weight'), kvWidth, d.hiddenSize),
      matrix(blk('attn_output.weight'), d.hiddenSize, qWidth),
      constantVector(blk('ffn_norm.weight'), d.hiddenSize, 1),
      matrix(blk('ffn_gate.weight'), d.intermediateSize, d.hiddenSize),
      matrix(blk('ffn_up.weight'), d.intermediateSize, d.hiddenSize),
      matrix(blk('ffn_down.weight'), d.hiddenSize, d.intermediateSize),
    );
    if (shape.hasQkvBias)
      tensors.push(
        constantVector(blk('attn_q.bias'), qWidth, 0),
        constantVector(blk('attn_k.bias'), kvWidth, 0),
        constantVector(blk('attn_v.bias'), kvWidth, 0),
      );
  }
  tensors.push(constantVector('output_norm.weight', d.hiddenSize, 1));
  if (!d.isTiedEmbedding) tensors.push(matrix('output.weight', d.vocabSize, d.hiddenSize));
  return tensors;
}

/** Writes `shape` with random f16 weights as a GGUF at `outPath`; returns the file's size in bytes. */
export function writeRandomGguf(shape: RandomShape, name: string, outPath: string): number {
  const metadata = [
    ...llamaMetadata(shape.config, name, 'f16', shape.architecture),
    ...tokenizerMetadata(shape),
  ];
  return writeGgufStreamed(outPath, metadata, randomTensors(shape));
}

import { mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeRandomModel } from '../../tools/onnx-llama/model-jobs';

/** Qwen 2's vocabulary size: past the 128k tokens where spreading a vocabulary overflowed the stack. */
export const BIG_VOCAB_SIZE = 151_936;

/**
 * Writes a small random-weight model whose tokenizer really has `vocabSize` tokens (the bundled
 * tokenizer's BPE vocabulary padded with tokens no merge produces, each decodable), so sampling
 * runs over every one of its logits: what a Qwen- or Llama-3-sized vocabulary costs the slot
 * worker, with a model small enough to load in seconds here.
 */
export function writeBigVocabModel(outDir: string, tokenizerFrom: string, vocabSize = BIG_VOCAB_SIZE): void {
  const tokenizerDir = mkdtempSync(path.join(os.tmpdir(), 'ff-big-vocab-tokenizer-'));
  try {
    const tokenizer = JSON.parse(readFileSync(path.join(tokenizerFrom, 'tokenizer.json'), 'utf8')) as {
      model: { vocab: Record<string, number> };
      added_tokens?: { id: number }[];
    };
    const used = [
      ...Object.values(tokenizer.model.vocab),
      ...(tokenizer.added_tokens ?? []).map((t) => t.id),
    ];
    let nextId = used.reduce((max, id) => Math.max(max, id), 0) + 1;
    for (; nextId < vocabSize; nextId++) tokenizer.model.vocab[`<pad_${nextId}>`] = nextId;
    writeFileSync(path.join(tokenizerDir, 'tokenizer.json'), JSON.stringify(tokenizer));
    copyFileSync(
      path.join(tokenizerFrom, 'tokenizer_config.json'),
      path.join(tokenizerDir, 'tokenizer_config.json'),
    );
    writeRandomModel({
      shape: {
        numLayers: 2,
        hiddenSize: 64,
        numHeads: 4,
        numKvHeads: 2,
        intermediateSize: 128,
        vocabSize,
        maxPositions: 2048,
      },
      seed: 7,
      outDir,
      weightDtype: 'float32',
      form: 'naive',
      tokenizerFrom: tokenizerDir,
    });
  } finally {
    rmSync(tokenizerDir, { recursive: true, force: true });
  }
}

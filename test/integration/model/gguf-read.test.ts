import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LlamaCppModel } from '../../../bench/peers/llama-cpp';
import { TextTokenizer } from '../../../src-main/runtime/tokenize/tokenizer';
import { inspectGguf } from '../../../src-main/runtime/model/gguf/gguf-model';
import { storageLabelOf } from '../../../src-main/runtime/model/gguf/storage-plan';
import { bundledGguf } from '../../support/gguf-fixtures';
import { llamaCppForSuite, peersSkipReason } from '../../support/llama-peers';
import { sentencePieceGguf } from '../../support/sentencepiece-gguf';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from '../../support/models';

const CONFIG = JSON.parse(
  readFileSync(path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID, 'config.json'), 'utf8'),
) as Record<string, number>;

/** Unicode, whitespace runs, digits, special-token text and stray bytes. */
const CORPUS = [
  'It is a truth universally acknowledged, that a single man in possession of a good fortune…',
  '  leading spaces,   runs of   spaces,\ttabs\t\tand\n\nnewlines\r\n ',
  'Numbers 1234567 and 3.14159, dates 1813-01-28; émigré naïve café — “quotes” ‘single’',
  'Ελληνικά, русский, 日本語のテキスト, 한국어, עברית, emoji 🎉👩‍👩‍👧 and math ∑∫√',
  '<|user|>Hello<|end|><|assistant|>Hi there<|end|><|endoftext|>',
  "don't won't I'm you're they've we'll she'd IT'S",
  '',
  ' ',
  '\n',
];

/** What SentencePiece files meet besides: control-token text between words, a leading "▁", <s>/</s> text. */
const SPM_CORPUS = ['Hello<|end|> world', '▁already▁escaped', '<s>not a bos</s> <unk>', 'x', '   '];

describe.skipIf(peersSkipReason !== null)('GGUF files made by llama.cpp, read by First Frame', () => {
  const engine = llamaCppForSuite();
  const models: LlamaCppModel[] = [];
  afterAll(async () => {
    for (const model of models) await model.close();
  });

  it('reads the f16 file: llama architecture, the config dimensions, tied embedding, f16 storage', () => {
    const model = inspectGguf(bundledGguf('f16'));
    expect(model.architecture).toBe('llama');
    expect(model.fileType).toBe('f16');
    expect(model.dims).toMatchObject({
      numLayers: CONFIG['num_hidden_layers'],
      hiddenSize: CONFIG['hidden_size'],
      numHeads: CONFIG['num_attention_heads'],
      numKvHeads: CONFIG['num_key_value_heads'],
      headDim: CONFIG['head_dim'],
      intermediateSize: CONFIG['intermediate_size'],
      vocabSize: CONFIG['vocab_size'],
      contextLength: CONFIG['max_position_embeddings'],
      isTiedEmbedding: true,
    });
    expect(model.plan.fidelity).toBe('exact');
    expect(storageLabelOf(model.plan)).toBe('fp16');
  });

  it('reads the Q4_K_M file llama.cpp quantized: its K-quant mix, kept exactly, Q4_K at 4 bits', () => {
    const model = inspectGguf(bundledGguf('q4_k_m'));
    expect(model.fileType).toBe('q4_k_m');
    expect(model.plan.typeCounts.get('Q4_K')).toBeGreaterThan(0);
    expect(model.plan.fidelity).toBe('exact');
    expect(model.plan.bytesByKind.get('int4')).toBeGreaterThan(0);
    console.log(
      'q4_k_m tensor types:',
      Object.fromEntries(model.plan.typeCounts),
      storageLabelOf(model.plan),
    );
  });

  it.each(['f16', 'q8_0', 'q4_k_m'] as const)(
    'tokenizes the corpus exactly as llama.cpp does (%s file)',
    async (type) => {
      const file = bundledGguf(type);
      const gguf = inspectGguf(file);
      const ours = new TextTokenizer(gguf.tokenizer);
      const theirs = await engine().open(file, 1, 256, {
        numUsable: gguf.dims.vocabSize,
        numLogits: gguf.dims.vocabSize,
      });
      models.push(theirs);
      for (const text of CORPUS)
        expect(ours.encode(text), JSON.stringify(text)).toEqual(theirs.tokenize(text));
    },
    120_000,
  );

  it('tokenizes the corpus exactly as llama.cpp does (a SentencePiece file: scores, byte fallback, "▁" spaces)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ff-gguf-spm-'));
    try {
      const file = sentencePieceGguf(path.join(dir, 'spm.gguf'));
      const gguf = inspectGguf(file);
      expect(gguf.set.metadata.get('tokenizer.ggml.model')).toBe('llama');
      const ours = new TextTokenizer(gguf.tokenizer);
      const theirs = await engine().open(file, 1, 256, {
        numUsable: gguf.dims.vocabSize,
        numLogits: gguf.dims.vocabSize,
      });
      models.push(theirs);
      for (const text of [...CORPUS, ...SPM_CORPUS])
        expect(ours.encode(text), JSON.stringify(text)).toEqual(theirs.tokenize(text));
      expect(ours.encode('日本')).toContain(ours.idOf('<0xE6>')); // 日 is E6 97 A5, by byte fallback
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

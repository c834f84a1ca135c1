import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readGgufSet } from '../../../../src-main/runtime/model/gguf/gguf-files';
import { rawPrompt } from '../../../../src-main/runtime/tokenize/chat-literals';
import { tokenizerFilesOfGguf } from '../../../../src-main/runtime/tokenize/gguf-tokenizer';
import { TextTokenizer } from '../../../../src-main/runtime/tokenize/tokenizer';
import type { TokenizerFiles } from '../../../../src-main/runtime/tokenize/tokenizer';
import { readTokenizerFiles } from '../../../../src-main/runtime/tokenize/tokenizer-files';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from '../../../support/models';
import { GEMMA_PIECES, LLAMA2_PIECES } from '../../../support/sentencepiece-gguf';
import { bpeVocabGguf, CHAT_CONTROLS, sentencePieceVocabGguf } from '../../../support/vocab-gguf';

/** Prose, accents, emoji (split bytes), whitespace runs and control-token text. */
const CORPUS = [
  'It is a truth universally acknowledged, that a single man in possession of a good fortune…',
  'émigré naïve café — “quotes” 日本語のテキスト emoji 🎉👩‍👩‍👧 ∑∫√',
  '  leading spaces,   runs of   spaces,\ttabs\t\tand\n\nnewlines\r\n',
  '<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|><|im_start|>assistant\n<|im_end|>',
  '<start_of_turn>user\nHi<end_of_turn>\n<s>x</s> <unk>',
];

/** GGUF vocabularies of both decoder kinds (byte-level BPE, SentencePiece with and without a space prefix) and a folder's. */
const VOCABULARIES: Array<{ name: string; filesIn: (dir: string) => TokenizerFiles }> = [
  {
    name: 'gpt2, llama-bpe',
    filesIn: (dir) =>
      ggufFiles(dir, 'bpe', (file) =>
        bpeVocabGguf(file, {
          pre: 'llama-bpe',
          controls: CHAT_CONTROLS,
          normals: ['Ġnoter'],
          bosToken: '<|begin_of_text|>',
          eosToken: '<|end_of_text|>',
        }),
      ),
  },
  {
    name: 'llama (SentencePiece), Llama 2 layout',
    filesIn: (dir) => ggufFiles(dir, 'llama2', (file) => sentencePieceVocabGguf(file, LLAMA2_PIECES)),
  },
  {
    name: 'llama (SentencePiece), Gemma layout',
    filesIn: (dir) => ggufFiles(dir, 'gemma', (file) => sentencePieceVocabGguf(file, GEMMA_PIECES)),
  },
  {
    name: "the bundled folder's tokenizer.json",
    filesIn: () => readTokenizerFiles(path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID)),
  },
];

/** The tokenizer files of a vocabulary-only GGUF written into `dir`. */
function ggufFiles(dir: string, name: string, write: (file: string) => string): TokenizerFiles {
  return tokenizerFilesOfGguf(readGgufSet(write(path.join(dir, `${name}.gguf`))).metadata);
}

describe('a tokenizer held as facts (built in another thread)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ff-vocab-decoder-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(VOCABULARIES)(
    'decodes, renders and adds BOS/EOS as the built tokenizer does, without building one ($name)',
    ({ filesIn }) => {
      const files = filesIn(dir);
      const built = new TextTokenizer(files);
      // Across a thread boundary, as the listing thread sends it.
      const held = new TextTokenizer(() => files, structuredClone(built.facts()));
      expect([held.vocabSize, held.addedBosId, held.addedEosId]).toEqual([
        built.vocabSize,
        built.addedBosId,
        built.addedEosId,
      ]);
      for (const text of CORPUS) {
        const ids = built.encodePrompt(rawPrompt(text));
        expect(held.decode(ids), JSON.stringify(text)).toBe(built.decode(ids));
        expect(held.decode(ids, false), JSON.stringify(text)).toBe(built.decode(ids, false));
        // One id at a time, as streaming decodes: partial UTF-8 stays partial the same way.
        for (let at = 1; at <= ids.length; at++)
          expect(held.decode(ids.slice(at - 1, at + 1))).toBe(built.decode(ids.slice(at - 1, at + 1)));
        const chat = [{ role: 'user' as const, content: text }];
        expect(held.renderChat(chat)).toEqual(built.renderChat(chat));
      }
      const everyId = Array.from({ length: built.vocabSize }, (_, id) => id);
      expect(everyId.map((id) => held.decode([id], false))).toEqual(
        everyId.map((id) => built.decode([id], false)),
      );
      expect(held.isBuiltHere).toBe(false);
      expect(built.isBuiltHere).toBe(true);
    },
    30_000,
  );

  it('builds the tokenizer on first need when asked to encode on its own thread, with the same ids', () => {
    const files = VOCABULARIES[1]!.filesIn(dir);
    const built = new TextTokenizer(files);
    const held = new TextTokenizer(() => files, built.facts());
    const prompt = held.renderChat([{ role: 'user', content: CORPUS[0]! }]);
    expect(held.encodePrompt(prompt)).toEqual(built.encodePrompt(prompt));
    expect(held.isBuiltHere).toBe(true);
  });
});

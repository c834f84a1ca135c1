import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { Tokenizer } from '@huggingface/tokenizers';
import { describe, expect, it } from 'vitest';
import { TextTokenizer } from '../../../../src-main/runtime/tokenize/tokenizer';
import { canCutAtSpaces } from '../../../../src-main/runtime/tokenize/safe-cuts';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from '../../../support/models';

const FOLDER = path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID);
const files = {
  tokenizerJson: JSON.parse(readFileSync(path.join(FOLDER, 'tokenizer.json'), 'utf8')) as Record<
    string,
    unknown
  >,
  tokenizerConfig: JSON.parse(readFileSync(path.join(FOLDER, 'tokenizer_config.json'), 'utf8')) as Record<
    string,
    unknown
  >,
};
const whole = new Tokenizer(files.tokenizerJson, files.tokenizerConfig);
const wholeEncode = (text: string) => whole.encode(text, { add_special_tokens: false }).ids;

describe('TextTokenizer', () => {
  const tokenizer = new TextTokenizer(files);

  it('encodes a rendered chat exactly as the whole-text tokenizer does, and again from its cache', () => {
    const messages = [
      { role: 'system' as const, content: 'You are Miss Bates: talk a great deal, kindly.' },
      {
        role: 'user' as const,
        content: 'Tell me about the ball at Netherfield and who danced with whom that evening, please.',
      },
      {
        role: 'assistant' as const,
        content: 'I am sure you will be very much pleased with the company; Mr. Bingley danced every dance.',
      },
      { role: 'user' as const, content: 'And then?' },
    ];
    const { text } = tokenizer.renderChat(messages);
    expect(tokenizer.encode(text)).toEqual(wholeEncode(text));
    expect(tokenizer.encode(text)).toEqual(wholeEncode(text));
  });

  it('encodes any text with special tokens in it exactly as the whole-text tokenizer does', () => {
    const piece = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.constantFrom('<|user|>', '<|assistant|>', '<|end|>', '<|endoftext|>', ' ', '\n', 'é'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (parts) => {
        const text = parts.join('');
        expect(tokenizer.encode(text)).toEqual(wholeEncode(text));
      }),
      { numRuns: 300, seed: 7 },
    );
  });

  it('encodes long texts in cached chunks exactly as the whole-text tokenizer does', () => {
    const word = fc.oneof(
      fc.constantFrom('the', 'Mr.', "don't", '4:30', 'é', '—', '"kind";', '12345', 'ab'),
      fc.string({ minLength: 1, maxLength: 12 }),
    );
    const gap = fc.constantFrom(' ', ' ', ' ', '  ', '\n', '\n\n', '\t', ' \n ', '');
    fc.assert(
      fc.property(fc.array(fc.tuple(word, gap), { minLength: 150, maxLength: 400 }), (pairs) => {
        const text = pairs.map(([w, g]) => w + g).join('');
        expect(tokenizer.encode(text)).toEqual(wholeEncode(text));
        const longer = `${text} and then, ${text.slice(0, 300)}`;
        expect(tokenizer.encode(longer)).toEqual(wholeEncode(longer));
      }),
      { numRuns: 60, seed: 11 },
    );
  });

  it('re-encodes only the tail of a text that repeats an earlier one, with the same ids', () => {
    const fresh = new TextTokenizer(files);
    const history = Array.from(
      { length: 60 },
      (_, i) => `Letter ${i}: she wrote of the ball and the weather.`,
    ).join(' ');
    expect(fresh.numUncachedChars(history)).toBe(history.length);
    fresh.encode(history);
    const next = `${history} And what did he answer?`;
    expect(fresh.numUncachedChars(next)).toBeLessThan(600);
    expect(fresh.encode(next)).toEqual(wholeEncode(next));
  });

  it('learns what another instance encoded (the tokenizer thread) and then gives the same ids', () => {
    const thread = new TextTokenizer(files);
    const serving = new TextTokenizer(files);
    const text = Array.from({ length: 80 }, (_, i) => `Chapter ${i}.  It rained\nall day.`).join(' ');
    const { ids, numIdsPerPart } = thread.encodeCounted(text);
    serving.learn(text, ids, numIdsPerPart);
    expect(serving.numUncachedChars(text)).toBeLessThan(600);
    expect(serving.encode(text)).toEqual(wholeEncode(text));
    serving.learn(`${text}!`, ids.slice(1), numIdsPerPart); // counts that do not line up teach nothing
    expect(serving.encode(`${text}!`)).toEqual(wholeEncode(`${text}!`));
  });

  it('never cuts text for a tokenizer whose normalizer sees the whole text', () => {
    expect(canCutAtSpaces(files.tokenizerJson)).toBe(true);
    expect(canCutAtSpaces({ ...files.tokenizerJson, normalizer: { type: 'NFC' } })).toBe(false);
    expect(canCutAtSpaces({ ...files.tokenizerJson, pre_tokenizer: null })).toBe(false);
    expect(
      canCutAtSpaces({ ...files.tokenizerJson, pre_tokenizer: { type: 'ByteLevel', use_regex: false } }),
    ).toBe(false);
  });

  it('loads a 256k-token vocabulary (Gemma-sized) and counts it without overflowing the stack', () => {
    const numTokens = 256_000;
    const vocab: Record<string, number> = { '[UNK]': 0 };
    for (let id = 1; id < numTokens; id += 1) vocab[`w${id}`] = id;
    const big = new TextTokenizer({
      tokenizerJson: {
        version: '1.0',
        added_tokens: [],
        normalizer: null,
        pre_tokenizer: { type: 'WhitespaceSplit' },
        post_processor: null,
        decoder: null,
        model: { type: 'WordLevel', vocab, unk_token: '[UNK]' },
      },
      tokenizerConfig: {},
    });
    expect(big.vocabSize).toBe(numTokens);
    expect(big.encode('w1 w255999 w128000')).toEqual([1, 255_999, 128_000]);
  });
});

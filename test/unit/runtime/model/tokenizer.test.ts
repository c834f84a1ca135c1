import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { Tokenizer } from '@huggingface/tokenizers';
import { describe, expect, it } from 'vitest';
import { TextTokenizer } from '../../../../src-main/runtime/model';
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
    const text = tokenizer.renderChat(messages);
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
});

import type { TextTokenizer } from '../../src-main/runtime/tokenize/tokenizer';

const WORDS = (
  'the morning was fine and she walked to the village with her sister where they met an old friend who spoke of ' +
  'letters from town a ball at the hall and the arrival of a gentleman whose fortune was said to be very large ' +
  'though nobody could say how he had come by it or why he had chosen so quiet a place for the summer'
).split(' ');

/** A deterministic English-like text of about `numTokens` tokens for this tokenizer. */
export function promptOfTokens(tokenizer: TextTokenizer, numTokens: number, seed: number): string {
  let state = seed >>> 0 || 1;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state;
  };
  const words: string[] = [`Run ${seed}:`];
  let text = words.join(' ');
  while (tokenizer.encode(text).length < numTokens) {
    for (let i = 0; i < 16; i++) words.push(WORDS[next() % WORDS.length]!);
    text = words.join(' ');
  }
  while (words.length > 1 && tokenizer.encode(words.join(' ')).length > numTokens) words.pop();
  return words.join(' ');
}

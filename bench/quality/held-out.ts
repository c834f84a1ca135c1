import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ModelFolder } from '../../src-main/runtime/model/load-folder';
import { HELD_OUT_TEXT } from '../../src-main/cli/paths';
import type { ScoredText } from './measure';

/** The held-out Austen passage: documents ff-austen-mini never trained on, and their hash. */
export interface HeldOutText {
  documents: string[];
  sha256: string;
}

/** Reads resources/eval/austen-held-out.json (the validation split's first narrative documents). */
export function readHeldOutText(file = HELD_OUT_TEXT): HeldOutText {
  const json = JSON.parse(readFileSync(file, 'utf8')) as { documents?: unknown };
  const documents = json.documents;
  if (!Array.isArray(documents) || documents.some((d) => typeof d !== 'string') || documents.length === 0)
    throw new Error(`${file}: expected { "documents": [string, …] }`);
  const sha256 = createHash('sha256').update(JSON.stringify(documents)).digest('hex');
  return { documents: documents as string[], sha256 };
}

/**
 * Each document as the model sees it: after the bos token when the model has one (every token of
 * the text is then scored), else its first token is context and its bytes are not counted.
 * Documents are cut to the model's context length.
 */
export function scoredTexts(folder: ModelFolder, text: HeldOutText): ScoredText[] {
  const { tokenizer, config, shape } = folder;
  const bosFromConfig = config['bos_token_id'];
  const bos =
    typeof bosFromConfig === 'number'
      ? bosFromConfig
      : tokenizer.bosToken
        ? tokenizer.idOf(tokenizer.bosToken)
        : undefined;
  return text.documents.map((document) => {
    const ids = tokenizer.encode(document).slice(0, shape.maxPositions - 1);
    if (bos !== undefined)
      return { prefix: [bos], scored: ids, numBytes: bytesOf(tokenizer.decode(ids, false)) };
    const [first, ...rest] = ids;
    return { prefix: [first!], scored: rest, numBytes: bytesOf(tokenizer.decode(rest, false)) };
  });
}

/**
 * `numPrompts` greedy prompts from the held-out documents: each document's opening
 * `numPromptTokens` tokens, then (for more prompts) windows from their middles.
 */
export function greedyPrompts(
  folder: ModelFolder,
  text: HeldOutText,
  numPrompts: number,
  numPromptTokens = 32,
): number[][] {
  const prompts: number[][] = [];
  const encoded = text.documents.map((d) => folder.tokenizer.encode(d));
  for (let round = 0; prompts.length < numPrompts && round < 4; round++) {
    for (const ids of encoded) {
      if (prompts.length === numPrompts) break;
      const start = Math.floor((ids.length * round) / 4);
      const window = ids.slice(start, start + numPromptTokens);
      if (window.length === numPromptTokens) prompts.push(window);
    }
  }
  if (prompts.length < numPrompts) throw new Error(`the held-out text gives only ${prompts.length} prompts`);
  return prompts;
}

function bytesOf(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

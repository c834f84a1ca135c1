// Reads what the model folder needs from a Hugging Face tokenizer folder:
// vocabulary size (highest id + 1) and the bos/eos/pad ids named in
// tokenizer_config.json, and copies the tokenizer files into a model folder.

import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Files copied when present; the first two are required. */
export const TOKENIZER_FILES = [
  'tokenizer.json',
  'tokenizer_config.json',
  'special_tokens_map.json',
  'chat_template.jinja',
];

/** Facts about a tokenizer folder; ids are null when the config names no such token. */
export interface TokenizerInfo {
  /** Highest token id + 1 over the model vocab and added tokens. */
  vocabSize: number;
  bosTokenId: number | null;
  eosTokenId: number | null;
  padTokenId: number | null;
}

interface TokenizerJson {
  model?: { vocab?: Record<string, number> | Array<[string, number]> };
  added_tokens?: Array<{ id: number; content: string }>;
}

function tokenIds(tokenizer: TokenizerJson): Map<string, number> {
  const ids = new Map<string, number>();
  const vocab = tokenizer.model?.vocab ?? {};
  if (Array.isArray(vocab)) vocab.forEach(([token], id) => ids.set(token, id));
  else for (const [token, id] of Object.entries(vocab)) ids.set(token, id);
  for (const added of tokenizer.added_tokens ?? []) ids.set(added.content, added.id);
  return ids;
}

function tokenContent(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { content?: unknown }).content === 'string'
  ) {
    return (value as { content: string }).content;
  }
  return null;
}

/** Reads tokenizer.json and tokenizer_config.json from `dir` (both required). */
export function readTokenizerInfo(dir: string): TokenizerInfo {
  for (const required of TOKENIZER_FILES.slice(0, 2)) {
    if (!existsSync(join(dir, required))) throw new Error(`tokenizer folder ${dir} has no ${required}`);
  }
  const tokenizer = JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')) as TokenizerJson;
  const tokenizerConfig = JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  const ids = tokenIds(tokenizer);
  const idOf = (key: string): number | null => {
    const content = tokenContent(tokenizerConfig[key]);
    return content === null ? null : (ids.get(content) ?? null);
  };
  let highestId = -1;
  for (const id of ids.values()) highestId = Math.max(highestId, id);
  return {
    vocabSize: highestId + 1,
    bosTokenId: idOf('bos_token'),
    eosTokenId: idOf('eos_token'),
    padTokenId: idOf('pad_token'),
  };
}

/** Copies the tokenizer files present in `fromDir` into `toDir`; returns the names copied. */
export function copyTokenizerFiles(fromDir: string, toDir: string): string[] {
  const copied: string[] = [];
  for (const name of TOKENIZER_FILES) {
    if (!existsSync(join(fromDir, name))) continue;
    copyFileSync(join(fromDir, name), join(toDir, name));
    copied.push(name);
  }
  return copied;
}

// A folder's tokenizer files as the tokenizer takes them: tokenizer.json and tokenizer_config.json,
// with special_tokens_map.json filling bos/eos text tokenizer_config.json leaves out and
// added_tokens.json's tokens added where tokenizer.json lacks them (transformers honours both).
// A GGUF's come from its metadata instead. The serving thread and the tokenizer thread read
// through here, so both build the same tokenizer.

import { readFolderJson, readFolderText } from '../model/folder-files';
import { readGgufHeader } from '../model/gguf/gguf-header';
import { ModelFolderError } from '../model/model-folder-error';
import { tokenizerFilesOfGguf } from './gguf-tokenizer';
import type { TokenizerFiles } from './tokenizer';

/** The tokenizer files of a Hugging Face or onnxruntime-genai folder, relative to the folder. */
export const TOKENIZER_FILES = {
  tokenizer: 'tokenizer.json',
  tokenizerConfig: 'tokenizer_config.json',
  chatTemplate: 'chat_template.jinja',
  specialTokensMap: 'special_tokens_map.json',
  addedTokens: 'added_tokens.json',
} as const;

/**
 * The tokenizer files of a listed model: a folder's, or those a GGUF's metadata describes (in its
 * first file's header: only that header is read, nothing hashed).
 */
export function tokenizerFilesOf(folder: string, isGguf: boolean): TokenizerFiles {
  return isGguf ? tokenizerFilesOfGguf(readGgufHeader(folder).metadata) : readTokenizerFiles(folder);
}

/** Reads and merges the folder's tokenizer files. Throws ModelFolderError naming the file. */
export function readTokenizerFiles(folder: string): TokenizerFiles {
  const tokenizerJson = readFolderJson(folder, TOKENIZER_FILES.tokenizer)!;
  if (typeof tokenizerJson['model'] !== 'object')
    throw new ModelFolderError(folder, TOKENIZER_FILES.tokenizer, 'has no "model" section');
  const tokenizerConfig = readFolderJson(folder, TOKENIZER_FILES.tokenizerConfig, true) ?? {};
  const specialMap = readFolderJson(folder, TOKENIZER_FILES.specialTokensMap, true) ?? {};
  for (const key of ['bos_token', 'eos_token', 'pad_token', 'unk_token'])
    if (tokenizerConfig[key] === undefined && specialMap[key] !== undefined)
      tokenizerConfig[key] = specialMap[key];
  const added = readFolderJson(folder, TOKENIZER_FILES.addedTokens, true);
  return {
    tokenizerJson: added ? withAddedTokens(tokenizerJson, added) : tokenizerJson,
    tokenizerConfig,
    chatTemplateFile: readFolderText(folder, TOKENIZER_FILES.chatTemplate, 1 << 20),
  };
}

/** tokenizer.json with added_tokens.json's `{content: id}` entries it does not already hold. */
function withAddedTokens(
  tokenizerJson: Record<string, unknown>,
  added: Record<string, unknown>,
): Record<string, unknown> {
  const list = Array.isArray(tokenizerJson['added_tokens'])
    ? [...(tokenizerJson['added_tokens'] as unknown[])]
    : [];
  const known = new Set(list.map((t) => (t as { content?: unknown }).content));
  for (const [content, id] of Object.entries(added)) {
    if (known.has(content) || typeof id !== 'number' || !Number.isInteger(id) || id < 0) continue;
    list.push({
      id,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    });
  }
  return { ...tokenizerJson, added_tokens: list };
}

// A model's tokenizer from its files. A folder's, as the tokenizer takes them: tokenizer.json and
// tokenizer_config.json, with special_tokens_map.json filling bos/eos text tokenizer_config.json
// leaves out and added_tokens.json's tokens added where tokenizer.json lacks them (transformers
// honours both); a GGUF's from its metadata. Listing, the serving thread and the tokenizer thread
// all build through here, so each builds the same tokenizer.

import { readFolderJson, readFolderText, resolveInside } from '../model/folder-files';
import { readGgufHeader } from '../model/gguf/gguf-header';
import type { ListedFolder } from '../model/listing/listing-protocol';
import type { ModelFolder } from '../model/load-folder';
import { ModelFolderError } from '../model/model-folder-error';
import { TemplateError } from './chat-template';
import { tokenizerFilesOfGguf } from './gguf-tokenizer';
import { TextTokenizer } from './tokenizer';
import type { TokenizerFacts, TokenizerFiles } from './tokenizer';

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
export function tokenizerFilesOfModel(folder: string, isGguf: boolean): TokenizerFiles {
  return isGguf ? tokenizerFilesOfGguf(readGgufHeader(folder).metadata) : readTokenizerFiles(folder);
}

/** Real paths of the folder's tokenizer files that exist (their content is the tokenizer revision). */
export function tokenizerFilePaths(folder: string): string[] {
  return Object.values(TOKENIZER_FILES)
    .map((file) => resolveInside(folder, file, true))
    .filter((file): file is string => file !== null);
}

/**
 * A listed folder with its tokenizer back: built from the same files (a folder's, or the GGUF's
 * metadata) the listing thread built and checked it from, on first use rather than at listing,
 * so a refresh never builds tokenizers on the serving thread and an unused model never does.
 * Given the facts the listing thread's tokenizer gave (a GGUF's), it holds those instead and
 * never builds the tokenizer on this thread unless something must encode here without a
 * tokenizer thread (TextTokenizer's facts form).
 */
export function withLazyTokenizer(listed: ListedFolder, facts: TokenizerFacts | null = null): ModelFolder {
  const files = () => tokenizerFilesOfModel(listed.folder, listed.format === 'gguf');
  let tokenizer: TextTokenizer | null = facts === null ? null : new TextTokenizer(files, facts);
  const folder = { ...listed } as ModelFolder;
  Object.defineProperty(folder, 'tokenizer', {
    enumerable: true,
    get: () => (tokenizer ??= new TextTokenizer(files())),
    set: (value: TextTokenizer) => {
      tokenizer = value;
    },
  });
  return folder;
}

/**
 * A folder's tokenizer, built and its chat template checked (listing). Throws ModelFolderError
 * naming the file at fault: tokenizer.json, or the file the chat template came from.
 */
export function buildFolderTokenizer(folder: string): TextTokenizer {
  const files = readTokenizerFiles(folder);
  const templateFile =
    (files.chatTemplateFile ?? null) === null
      ? TOKENIZER_FILES.tokenizerConfig
      : TOKENIZER_FILES.chatTemplate;
  let tokenizer: TextTokenizer;
  try {
    tokenizer = new TextTokenizer(files);
  } catch (error) {
    if (error instanceof TemplateError)
      throw new ModelFolderError(folder, templateFile, `chat template ${error.message}`);
    throw new ModelFolderError(
      folder,
      TOKENIZER_FILES.tokenizer,
      `cannot be loaded (${(error as Error).message})`,
    );
  }
  try {
    tokenizer.checkChatTemplate();
  } catch (error) {
    throw new ModelFolderError(folder, templateFile, `chat template ${(error as Error).message}`);
  }
  return tokenizer;
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

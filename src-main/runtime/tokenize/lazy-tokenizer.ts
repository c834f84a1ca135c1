import type { ModelFolder } from '../model/load-folder';
import { TextTokenizer } from './tokenizer';
import { tokenizerFilesOf } from './tokenizer-files';
import type { ListedFolder } from '../model/listing/listing-protocol';

/**
 * A listed folder with its tokenizer back: built from the same files (a folder's, or the GGUF's
 * metadata) the listing thread built and checked it from, on first use rather than at listing,
 * so a refresh never builds tokenizers on the serving thread and an unused model never does.
 */
export function withLazyTokenizer(listed: ListedFolder): ModelFolder {
  let tokenizer: TextTokenizer | null = null;
  const folder = { ...listed } as ModelFolder;
  Object.defineProperty(folder, 'tokenizer', {
    enumerable: true,
    get: () => (tokenizer ??= new TextTokenizer(tokenizerFilesOf(listed.folder, listed.format === 'gguf'))),
    set: (value: TextTokenizer) => {
      tokenizer = value;
    },
  });
  return folder;
}

import { readGgufHeader } from '../gguf/gguf-header';
import { tokenizerFilesOfGguf } from '../gguf/gguf-tokenizer';
import type { ModelFolder } from '../load-folder';
import { TextTokenizer } from '../tokenizer';
import { readTokenizerFiles } from '../tokenizer-files';
import type { ListedFolder } from './listing-protocol';

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
    get: () => (tokenizer ??= buildTokenizer(listed)),
    set: (value: TextTokenizer) => {
      tokenizer = value;
    },
  });
  return folder;
}

/** A GGUF's tokenizer is in its (first) file's metadata: only that header is read, none hashed. */
function buildTokenizer(listed: ListedFolder): TextTokenizer {
  const files =
    listed.format === 'gguf'
      ? tokenizerFilesOfGguf(readGgufHeader(listed.folder).metadata)
      : readTokenizerFiles(listed.folder);
  return new TextTokenizer(files);
}

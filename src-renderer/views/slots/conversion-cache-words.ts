// The conversion cache panel's sentences: what a clear would do and what it did, in plain words.

import type { ClearedConversions, ConversionCache } from '../../../src-main/service/contract/model-schemas';
import { formatBytes } from '../../components/format';

/** The file name of a GGUF path (either separator), or words when the record does not say. */
export const fileNameOf = (sourcePath: string | null) =>
  sourcePath?.split(/[\\/]/).at(-1) ?? 'a GGUF file (name not recorded)';

/** What a clear would do, in the words the confirmation shows. */
export function clearSentence(cache: ConversionCache): string {
  const numFree = cache.folders.filter((f) => !f.isInUse).length;
  const numKept = cache.folders.length - numFree;
  const kept = numKept > 0 ? ` ${numKept} in use by a loaded model ${numKept === 1 ? 'stays' : 'stay'}.` : '';
  return `Remove ${numFree} converted ${numFree === 1 ? 'model' : 'models'} and free ${formatBytes(cache.numFreeableBytes)}?${kept} Your GGUF files are not touched; each model converts again the next time it loads, which takes a while.`;
}

/** What a clear did, in words. */
export function clearedSentence(cleared: ClearedConversions): string {
  const removed = `Removed ${cleared.numRemoved} converted ${cleared.numRemoved === 1 ? 'model' : 'models'}, freed ${formatBytes(cleared.numFreedBytes)}.`;
  const kept = cleared.numKeptInUse > 0 ? ` Kept ${cleared.numKeptInUse} in use.` : '';
  const failed = cleared.problems.length > 0 ? ` Could not remove: ${cleared.problems.join('; ')}` : '';
  return removed + kept + failed;
}

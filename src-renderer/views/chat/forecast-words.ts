import type { SendForecast } from '../../../src-main/service/contract/chat-schemas';
import { formatBytes, formatCount, formatMs } from '../../components/format';

/**
 * The Simple view's forecast line, in words: when the first word should come and why (what
 * is remembered, what must be read, the waits it knows). Same figures as Expert's line; no
 * pages, prefill or TTFT.
 */
export function simpleForecast(f: SendForecast): string {
  if (f.remote)
    return f.estTtftMs === null
      ? 'First word: unknown until this endpoint has answered once.'
      : `First word in about ${formatMs(f.estTtftMs)} (the middle of this endpoint's recent answers).`;
  const reading =
    f.numCachedTokens > 0
      ? `${formatCount(f.numNewTokens)} new tokens to read, ${formatCount(f.numCachedTokens)} remembered from before`
      : `${formatCount(f.numNewTokens)} tokens to read`;
  if (f.estTtftMs === null) return `First word: known after the first answer (${reading}).`;
  const waits = knownWaits(f);
  return `First word in about ${formatMs(f.estTtftMs)}: ${reading}${waits ? `, ${waits}` : ''}.`;
}

/** "loading the model first" and "about 3 ms behind 2 queued answers", when they apply. */
function knownWaits(f: SendForecast): string {
  const waits: string[] = [];
  if (f.isSlotCold) waits.push('loading the model first');
  const diskRead = diskReadWords(f);
  if (diskRead) waits.push(diskRead);
  if (f.estWaitMs !== null && f.estWaitMs >= 0.05)
    waits.push(
      f.numAhead > 0
        ? `about ${formatMs(f.estWaitMs)} behind ${f.numAhead === 1 ? '1 queued answer' : `${f.numAhead} queued answers`}`
        : `about ${formatMs(f.estWaitMs)} for the answer being written now`,
    );
  return waits.join(' and ');
}

/**
 * "reading 12.3 MiB of remembered context from disk (about 40 ms)" when some of the reused
 * pages come back from disk first (both modes say it the same way); null when none do.
 */
export function diskReadWords(f: SendForecast): string | null {
  if (f.numDiskPages === 0) return null;
  const what = `reading ${formatBytes(f.numDiskBytes)} of remembered context from disk`;
  return f.estDiskReadMs === null ? what : `${what} (about ${formatMs(f.estDiskReadMs)})`;
}

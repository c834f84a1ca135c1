import type { SendForecast } from '../../../src-main/service/contract/chat-schemas';
import { formatCount, formatMs } from '../../components/format';

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
  if (f.estWaitMs !== null && f.estWaitMs >= 0.05)
    waits.push(
      f.numAhead > 0
        ? `about ${formatMs(f.estWaitMs)} behind ${f.numAhead === 1 ? '1 queued answer' : `${f.numAhead} queued answers`}`
        : `about ${formatMs(f.estWaitMs)} for the answer being written now`,
    );
  return waits.join(' and ');
}

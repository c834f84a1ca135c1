import type { Timeline } from '../../../src-main/telemetry/timeline/schema';
import { formatCount, formatMs } from '../../components/format';
import { groupSlicesOf, phasesOf } from '../../parts';

/**
 * The Simple view's one sentence under an answer: how long the first word took and where most
 * of that went, with the fact behind it (a model loaded from disk, requests ahead, how much of
 * the conversation had to be read again). Null before a first token.
 */
export function plainSentence(t: Timeline): string | null {
  if (t.ttftMs === null) return null;
  const slices = groupSlicesOf(phasesOf(t));
  const top = slices.reduce((a, b) => (b.ms > a.ms ? b : a), slices[0]!);
  const lead = `The first word came after ${formatMs(t.ttftMs)}`;
  if (!top) return `${lead}.`;
  const d = t.diagnosis;
  switch (top.group.key) {
    case 'loading':
      return `${lead}, most of it loading the model into memory${d?.slotLoad?.kind === 'first-load' ? ' for the first time since the app started' : ''}; the next answer finds it loaded.`;
    case 'waiting':
      return d && d.numQueuedBehind > 0
        ? `${lead}, most of it waiting behind ${d.numQueuedBehind === 1 ? 'another request' : `${d.numQueuedBehind} other requests`}.`
        : `${lead}, most of it waiting for the engine to finish what it was doing.`;
    case 'reading': {
      const numNew = t.numPromptTokens - t.numCachedTokens;
      return t.numCachedTokens > 0
        ? `${lead}, most of it reading ${formatCount(numNew)} new tokens of the conversation (${formatCount(t.numCachedTokens)} were remembered from before).`
        : `${lead}, most of it reading the ${formatCount(t.numPromptTokens)} tokens of the conversation.`;
    }
    case 'first-token':
      return `${lead}, most of it picking the first word and sending it.`;
  }
}

import type { Timeline } from '../../../src-main/telemetry/timeline/schema';
import { formatBytes, formatCount, formatMs, formatShare } from '../../components/format';
import { phasesOf } from '../../parts/phase-values';
import { groupSlicesOf } from '../../parts/simple-groups';
import type { GroupSlice } from '../../parts/simple-groups';
import type { AnswerFigures } from './answer-figures';

/** Above this share the largest group is "most of it"; below, it is only "the largest part". */
const MOST_SHARE = 0.5;

/**
 * The Simple view's sentences under an answer: the wait the window saw (the server's TTFT when
 * the window has no stamp of its own), where the largest share of it went with the fact behind
 * it, and the decode speed after it. Null before a first token.
 */
export function plainSentence(t: Timeline, figures: AnswerFigures): string | null {
  if (t.ttftMs === null) return null;
  const slices = groupSlicesOf(phasesOf(t), figures.transportMs);
  const waitMs = figures.clientTtftMs ?? t.ttftMs;
  const lead =
    figures.clientTtftMs === null
      ? `The first word came after ${formatMs(waitMs)}`
      : `The first word reached the window after ${formatMs(waitMs)}`;
  const top = slices.reduce<GroupSlice | null>((a, b) => (a === null || b.ms > a.ms ? b : a), null);
  const where =
    top === null ? '.' : `, ${shareWords(top)} ${whereWords(t, top, (figures.transportMs ?? 0) > 0)}.`;
  const rate = figures.tokensPerS === null ? '' : ` Then ${figures.tokensPerS.toFixed(1)} tokens a second.`;
  return `${lead}${where}${rate}`;
}

/** "most of it" only above half; otherwise the share is said as it is. */
function shareWords(slice: GroupSlice): string {
  return slice.share > MOST_SHARE ? 'most of it' : `the largest part (${formatShare(slice.share)})`;
}

/** What the largest group was, naming a cause only when the timeline shows it happened. */
function whereWords(t: Timeline, slice: GroupSlice, hasTransport: boolean): string {
  const d = t.diagnosis;
  switch (slice.group.key) {
    case 'loading':
      return `loading the model into memory${d?.slotLoad?.kind === 'first-load' ? ' for the first time since the app started' : ''}; the next answer finds it loaded`;
    case 'waiting':
      if (d?.diskRead && d.diskRead.numPages > 0 && d.diskRead.readMs >= slice.ms / 2)
        return `reading ${formatBytes(d.diskRead.numBytes)} of remembered context from disk in ${formatMs(d.diskRead.readMs)}`;
      return d && d.numQueuedBehind > 0
        ? `waiting behind ${d.numQueuedBehind === 1 ? 'another request' : `${d.numQueuedBehind} other requests`}`
        : 'waiting to be picked up (no other request was ahead of it)';
    case 'reading': {
      const numNew = t.numPromptTokens - t.numCachedTokens;
      return t.numCachedTokens > 0
        ? `reading ${formatCount(numNew)} new tokens of the conversation (${formatCount(t.numCachedTokens)} were remembered from before)`
        : `reading the ${formatCount(t.numPromptTokens)} tokens of the conversation`;
    }
    case 'first-token':
      return hasTransport
        ? 'picking the first word and sending it to the window'
        : 'picking the first word and sending it';
  }
}

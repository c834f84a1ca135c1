import { emptyObservation } from '../../src-main/runtime/remote/observation';
import type { RemoteObservation } from '../../src-main/runtime/remote/observation';

/**
 * A remote answer that finished normally: sent at `sentAt`, headers, first byte and first content
 * all at `contentAts[0]`, the last chunk at the last content event and the stream ended 1 ms later.
 */
export function finishedAnswer(
  sentAt: number,
  contentAts: readonly number[],
  completionTokens: number,
): RemoteObservation {
  const seen = emptyObservation(sentAt);
  const first = contentAts[0]!;
  const last = contentAts[contentAts.length - 1]!;
  seen.contentAts = [...contentAts];
  Object.assign(seen.stamps, {
    headersAt: first,
    firstByteAt: first,
    firstContentAt: first,
    lastChunkAt: last,
  });
  seen.stamps.endedAt = last + 1;
  seen.finishReason = 'stop';
  seen.usage = { promptTokens: 20, completionTokens, cachedTokens: null };
  return seen;
}

import type { PushedEvent } from '../../src-main/service/contract/events';
import type { Core } from '../../src-main/service/core-options';
import type { Timeline } from '../../src-main/telemetry/timeline/schema';

/** One chat turn: how long `chat.send` took to answer, and the turn's pushed events until done. */
export interface TurnResult {
  requestId: string;
  sendMs: number;
  turnMs: number;
  events: PushedEvent[];
}

/** Sends a turn (greedy, 8 tokens) and waits for its `request.done`; throws if the call fails. */
export async function sendTurn(core: Core, conversationId: string, content: string): Promise<TurnResult> {
  const events: PushedEvent[] = [];
  let requestId = '';
  let resolveDone: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (resolveDone = resolve));
  const off = core.service.subscribe((event) => {
    events.push(event);
    if (event.name === 'request.done' && event.payload.requestId === requestId) resolveDone();
  });
  const startAt = performance.now();
  const sent = await core.service.call('chat.send', {
    conversationId,
    content,
    sampling: { temperature: 0, maxTokens: 8 },
  });
  const sendMs = performance.now() - startAt;
  if (!sent.ok) {
    off();
    throw new Error(`chat.send failed: ${sent.error.code}: ${sent.error.message}`);
  }
  requestId = sent.value.requestId;
  if (events.some((e) => e.name === 'request.done' && e.payload.requestId === requestId)) resolveDone();
  await done;
  off();
  const turnMs = performance.now() - startAt;
  const own = events.filter(
    (e) =>
      ('requestId' in e.payload && e.payload.requestId === requestId) ||
      (e.name === 'timeline.finished' && e.payload.timeline.requestId === requestId),
  );
  return { requestId, sendMs, turnMs, events: own };
}

/** The timeline of `requestId` as pushed in `timeline.finished` (once per request); throws when it was not. */
export function finishedTimelineOf(events: readonly PushedEvent[], requestId: string): Timeline {
  const found = events.filter(
    (e): e is Extract<PushedEvent, { name: 'timeline.finished' }> =>
      e.name === 'timeline.finished' && e.payload.timeline.requestId === requestId,
  );
  if (found.length !== 1) throw new Error(`${found.length} timeline.finished events for ${requestId}`);
  return found[0]!.payload.timeline;
}

import type { Core, PushedEvent } from '../../src-main/service';

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
  const own = events.filter((e) => 'requestId' in e.payload && e.payload.requestId === requestId);
  return { requestId, sendMs, turnMs, events: own };
}

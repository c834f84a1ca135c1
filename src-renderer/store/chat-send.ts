import type { StoreApi } from 'zustand/vanilla';
import type { Bridge } from '../bridge';
import type { AnswerItem } from './chat-items';
import { newAnswer, newKey, updateAnswer } from './chat-items';
import { applyRequestEvent } from './chat-events';
import type { ChatState } from './chat-store';
import type { EarlyEvents } from './early-events';

/** The answer still in progress in the open conversation, if any. */
export function activeAnswer(state: Pick<ChatState, 'items'>): AnswerItem | null {
  const last = state.items.at(-1);
  return last?.kind === 'assistant' && last.status !== 'done' && last.status !== 'failed' ? last : null;
}

/**
 * Sends a message: opens a conversation if none is open, shows the question and an answer
 * placeholder stamped with the send on the renderer's clock (the client TTFT starts where
 * the user pressed Send), calls the service, then adopts any
 * events that beat the reply. A Stop pressed before the reply cancels as soon as it lands.
 */
export async function sendMessage(
  store: StoreApi<ChatState>,
  bridge: Bridge,
  early: EarlyEvents,
  content: string,
): Promise<void> {
  const text = content.trim();
  if (text === '' || activeAnswer(store.getState())) return;
  const conversationId = store.getState().conversationId ?? (await createConversation(store, bridge));
  if (!conversationId) return;
  early.begin();
  const answer = newAnswer(performance.now());
  const matchThis = (a: AnswerItem) => a.key === answer.key;
  store.setState((s) => ({
    items: [...s.items, { kind: 'user', key: newKey('u'), text }, answer],
    error: null,
  }));
  const { modelId, sampling } = store.getState();
  const result = await bridge.call('chat.send', {
    conversationId,
    content: text,
    sampling,
    ...(modelId ? { modelId } : {}),
  });
  const requestId = result.ok ? result.value.requestId : null;
  const held = early.end(requestId);
  let items = updateAnswer(store.getState().items, matchThis, (a) =>
    result.ok
      ? { ...a, requestId, status: a.status === 'sending' ? 'waiting' : a.status }
      : { ...a, status: 'failed', error: result.error.message },
  );
  for (const { event, receivedAt } of held) items = applyRequestEvent(items, event, receivedAt);
  store.setState({ items });
  const after = store.getState().items.find((i) => i.key === answer.key);
  if (after?.kind === 'assistant' && after.isStopRequested && after.status !== 'done')
    await stopAnswer(store, bridge);
}

/** Stops the answer in progress (Stop button, Escape). */
export async function stopAnswer(store: StoreApi<ChatState>, bridge: Bridge): Promise<void> {
  const answer = activeAnswer(store.getState());
  if (!answer) return;
  store.setState((s) => ({
    items: updateAnswer(
      s.items,
      (a) => a.key === answer.key,
      (a) => ({ ...a, isStopRequested: true }),
    ),
  }));
  if (answer.requestId === null) return;
  const result = await bridge.call('chat.cancel', { requestId: answer.requestId });
  if (!result.ok) store.setState({ error: `Stop failed: ${result.error.message}` });
}

/** A new conversation; the service titles it from its first message. */
async function createConversation(store: StoreApi<ChatState>, bridge: Bridge): Promise<string | null> {
  const result = await bridge.call('chat.createConversation', {});
  if (!result.ok) {
    store.setState({ error: result.error.message });
    return null;
  }
  store.setState((s) => ({
    conversationId: result.value.conversationId,
    conversations: [result.value, ...s.conversations],
  }));
  return result.value.conversationId;
}

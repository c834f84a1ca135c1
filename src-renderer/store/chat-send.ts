import type { StoreApi } from 'zustand/vanilla';
import type { TurnStarted } from '../../src-main/service/contract/chat-schemas';
import type { Result } from '../../src-main/service/contract/result';
import type { Bridge } from '../bridge/bridge';
import type { AnswerItem, ChatItem, UserItem } from './chat-items';
import { namedVersion, newAnswer, newQuestion, updateAnswer, withNewVersion } from './chat-items';
import type { ChatState } from './chat-store';

/** The answer still in progress in the open conversation, if any. */
export function activeAnswer(state: Pick<ChatState, 'items'>): AnswerItem | null {
  return (
    state.items.find(
      (item): item is AnswerItem =>
        item.kind === 'assistant' && item.status !== 'done' && item.status !== 'failed',
    ) ?? null
  );
}

/** What an answer cut off by a lost connection says until the stored one is read back. */
export const CONNECTION_LOST_NOTE =
  'The connection to First Frame dropped while this answer was written (First Frame may have stopped); the text is what had arrived. It is read back from the history when the connection returns.';

/**
 * Ends the answer in progress as `interrupted` when the connection to First Frame drops: none
 * of its events can come now, so Send comes back at once instead of a Stop that cannot reach
 * anyone. Returns the answer's conversation, to read the stored answer back on reconnect, or
 * null when nothing was in progress.
 */
export function interruptActiveAnswer(store: StoreApi<ChatState>): string | null {
  const answer = activeAnswer(store.getState());
  if (!answer) return null;
  store.setState((s) => ({
    items: updateAnswer(
      s.items,
      (a) => a.key === answer.key,
      (a) => ({
        ...a,
        status: 'done',
        finishReason: 'interrupted',
        doneAt: performance.now(),
        error: CONNECTION_LOST_NOTE,
      }),
    ),
  }));
  return store.getState().conversationId;
}

/** What a turn needs from the chat store's surroundings. */
export interface TurnDeps {
  store: StoreApi<ChatState>;
  bridge: Bridge;
}

/**
 * Sends a message: opens a conversation if none is open, shows the question and an answer
 * placeholder stamped with the send on the renderer's clock (the client TTFT starts where
 * the user pressed Send). If the service refuses or cannot be reached, the rows go away, the
 * typed text comes back to the composer and the reason shows; nothing was stored.
 */
export async function sendMessage(deps: TurnDeps, content: string): Promise<void> {
  const { store, bridge } = deps;
  const text = content.trim();
  if (text === '' || activeAnswer(store.getState())) return;
  store.setState({ draft: '', sendError: null });
  const isNewChat = store.getState().conversationId === null;
  const conversationId = store.getState().conversationId ?? (await createConversation(deps));
  if (!conversationId) return store.setState({ draft: content });
  const question = newQuestion(text);
  const answer = newAnswer(performance.now());
  const before = store.getState().items;
  const isOk = await startTurn(deps, [...before, question, answer], question, answer, () =>
    bridge.call('chat.send', { conversationId, content: text, requestId: answer.requestId! }),
  );
  if (!isOk) {
    store.setState({ items: before, draft: content });
    // A chat is kept only once it holds a message: the one made for a refused first send goes.
    if (isNewChat) await forgetEmptyChat(deps, conversationId);
  }
}

/** Removes the chat created for a first send the service refused, and shows no chat open. */
async function forgetEmptyChat({ store, bridge }: TurnDeps, conversationId: string): Promise<void> {
  store.setState((s) => ({
    conversationId: s.conversationId === conversationId ? null : s.conversationId,
    conversations: s.conversations.filter((c) => c.conversationId !== conversationId),
  }));
  const result = await bridge.call('chat.deleteConversation', { conversationId });
  if (!result.ok) console.warn(`could not remove the empty chat ${conversationId}: ${result.error.message}`);
}

/** Asks again for the answer `answerKey`: the new answer becomes its turn's newest version. */
export async function regenerateAnswer(deps: TurnDeps, answerKey: string): Promise<void> {
  const { store, bridge } = deps;
  const { conversationId, items } = store.getState();
  const at = items.findIndex((item) => item.key === answerKey);
  const old = items[at];
  const question = items[at - 1];
  if (
    !conversationId ||
    old?.kind !== 'assistant' ||
    question?.kind !== 'user' ||
    activeAnswer(store.getState())
  )
    return;
  const messageId = old.messageId ?? question.messageId;
  if (!messageId) return;
  const answer = newAnswer(performance.now(), withNewVersion(old));
  const isOk = await startTurn(deps, [...items.slice(0, at), answer], null, answer, () =>
    bridge.call('chat.regenerate', { conversationId, messageId, requestId: answer.requestId! }),
  );
  if (!isOk) store.setState({ items });
}

/** Sends an edited question as a new version of its turn (a branch; the old one is kept). */
export async function editQuestion(deps: TurnDeps, questionKey: string, content: string): Promise<boolean> {
  const { store, bridge } = deps;
  const { conversationId, items } = store.getState();
  const at = items.findIndex((item) => item.key === questionKey);
  const old = items[at];
  const text = content.trim();
  if (
    !conversationId ||
    old?.kind !== 'user' ||
    !old.messageId ||
    text === '' ||
    activeAnswer(store.getState())
  )
    return false;
  const messageId = old.messageId;
  const question = newQuestion(text, withNewVersion(old));
  const answer = newAnswer(performance.now());
  const isOk = await startTurn(deps, [...items.slice(0, at), question, answer], question, answer, () =>
    bridge.call('chat.edit', { conversationId, messageId, content: text, requestId: answer.requestId! }),
  );
  if (!isOk) store.setState({ items });
  return isOk;
}

/**
 * Shows `next`, calls the service, then names the rows by the reply. The answer carries the
 * request id it sent, so events that beat the reply were already applied to it. A Stop pressed
 * before the service took the turn cancels as soon as the reply lands. False when refused.
 */
async function startTurn(
  deps: TurnDeps,
  next: ChatItem[],
  question: UserItem | null,
  answer: AnswerItem,
  call: () => Promise<Result<TurnStarted>>,
): Promise<boolean> {
  const { store } = deps;
  store.setState({ items: next, error: null, sendError: null });
  const result = await call();
  if (!result.ok) {
    store.setState({ sendError: result.error.message });
    return false;
  }
  const { userMessageId, forecast } = result.value;
  let items = store
    .getState()
    .items.map((item) =>
      question && item.key === question.key
        ? { ...item, messageId: userMessageId, ...namedVersion(question, userMessageId) }
        : item,
    );
  items = updateAnswer(
    items,
    (a) => a.key === answer.key,
    (a) => ({
      ...a,
      forecast,
      numDroppedMessages: forecast.numDroppedMessages,
      status: a.status === 'sending' ? 'waiting' : a.status,
    }),
  );
  store.setState({ items });
  const after = store.getState().items.find((i) => i.key === answer.key);
  if (after?.kind === 'assistant' && after.isStopRequested && after.status !== 'done')
    await stopAnswer(deps.store, deps.bridge);
  return true;
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
  // Until the service has taken the turn (its reply, or the request's first event) there is
  // nothing to cancel: the reply cancels it then.
  if (answer.requestId === null || answer.status === 'sending') return;
  const result = await bridge.call('chat.cancel', { requestId: answer.requestId });
  if (!result.ok) store.setState({ error: `Stop failed: ${result.error.message}` });
}

/** A new conversation with the draft's settings; the service titles it from its first message. */
async function createConversation({ store, bridge }: TurnDeps): Promise<string | null> {
  const result = await bridge.call('chat.createConversation', { settings: store.getState().settings });
  if (!result.ok) {
    store.setState({ sendError: result.error.message });
    return null;
  }
  store.setState((s) => ({
    conversationId: result.value.conversationId,
    conversations: [result.value, ...s.conversations],
  }));
  return result.value.conversationId;
}

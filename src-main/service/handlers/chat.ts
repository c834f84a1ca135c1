import { randomUUID } from 'node:crypto';
import type { GenerationOutcome, GenerationRequest } from '../../runtime';
import { ServiceFailure } from '../contract';
import type { MethodInput } from '../contract';
import type { CoreDeps } from '../core-deps';
import type { Handlers } from '../service';

type ChatHandlers = Pick<
  Handlers,
  | 'chat.listConversations'
  | 'chat.getConversation'
  | 'chat.createConversation'
  | 'chat.deleteConversation'
  | 'chat.send'
  | 'chat.cancel'
>;

const NEW_TITLE = 'New chat';

/** Conversations kept across restarts, and sending a turn: the answer streams as pushed events. */
export function chatHandlers(deps: CoreDeps): ChatHandlers {
  const { chats } = deps;
  const conversationOrFail = (conversationId: string) => {
    const conversation = chats.getConversation(conversationId);
    if (!conversation) throw new ServiceFailure('not_found', `no conversation "${conversationId}"`);
    return conversation;
  };
  return {
    'chat.listConversations': () => chats.listConversations(),
    'chat.getConversation': ({ conversationId }) => {
      const conversation = conversationOrFail(conversationId);
      const live = new Map(deps.window.toArray().map((t) => [t.requestId, t]));
      const messages = chats.messages(conversationId).map((m) => ({
        ...m,
        timeline: m.timeline ?? (m.requestId ? (live.get(m.requestId) ?? null) : null),
      }));
      return { conversation, messages };
    },
    'chat.createConversation': ({ title }) => chats.createConversation({ title: title?.trim() || NEW_TITLE }),
    'chat.deleteConversation': ({ conversationId }) => ({
      isDeleted: chats.deleteConversation(conversationId),
    }),
    'chat.send': (input) => send(deps, conversationOrFail(input.conversationId), input),
    'chat.cancel': ({ requestId }) => ({ wasRunning: deps.runtime.cancel(requestId) }),
  };
}

function send(
  deps: CoreDeps,
  conversation: { conversationId: string; title: string; numMessages: number },
  input: MethodInput<'chat.send'>,
) {
  const { chats, hub, runtime } = deps;
  const history = chats
    .messages(conversation.conversationId)
    .map((m) => ({ role: m.role, content: m.content }));
  const userMessage = chats.addMessage({
    conversationId: conversation.conversationId,
    role: 'user',
    content: input.content,
  });
  if (conversation.title === NEW_TITLE && conversation.numMessages === 0)
    chats.renameConversation(conversation.conversationId, titleOf(input.content));
  const requestId = randomUUID();
  const request: GenerationRequest = {
    requestId,
    modelId: input.modelId,
    prompt: { kind: 'chat', messages: [...history, { role: 'user', content: input.content }] },
    conversationId: conversation.conversationId,
    ...input.sampling,
  };
  runtime.submit(request, {
    onQueued: (position) => hub.emit('request.queued', { requestId, position }),
    onChunk: (chunk) =>
      hub.emit('request.chunk', { requestId, text: chunk.text, numTokens: chunk.tokenIds.length }),
    onDone: (outcome) =>
      hub.emit('request.done', {
        requestId,
        timeline: outcome.timeline,
        messageId: storeAnswer(deps, conversation.conversationId, outcome),
      }),
  });
  return { requestId, userMessageId: userMessage.messageId };
}

/** Keeps the answer (partial ones too, as chat apps do); refused or failed requests keep nothing. */
function storeAnswer(deps: CoreDeps, conversationId: string, outcome: GenerationOutcome): string | null {
  const reason = outcome.timeline.finishReason;
  if (reason === 'rejected' || (reason === 'error' && outcome.text.length === 0)) return null;
  try {
    return deps.chats.addMessage({
      conversationId,
      role: 'assistant',
      content: outcome.text,
      requestId: outcome.requestId,
    }).messageId;
  } catch {
    return null;
  }
}

/** The first line of the first message, shortened, as the conversation's title. */
function titleOf(content: string): string {
  const line = content.trim().split('\n')[0] ?? NEW_TITLE;
  return line.length > 48 ? `${line.slice(0, 47)}…` : line || NEW_TITLE;
}

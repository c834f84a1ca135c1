import type { ConversationRecord } from '../../store';
import type { ConversationSettings, MethodInput } from '../contract';
import { ServiceFailure } from '../contract';
import type { CoreDeps } from '../core-deps';
import type { Handlers } from '../service';
import { defaultSettings, readSettings } from '../chat/settings';
import { pathTo } from '../chat/tree';
import {
  NEW_TITLE,
  branchOf,
  forecastOf,
  planTurn,
  refuseIfTooLong,
  runTurn,
  titleOf,
  turnsOf,
} from '../chat/turns';

type TurnHandlers = Pick<
  Handlers,
  'chat.forecast' | 'chat.send' | 'chat.regenerate' | 'chat.edit' | 'chat.cancel'
>;

/**
 * Turns of a conversation: a forecast while typing, send, regenerate (a new version of an
 * answer) and edit (a new version of a question, a branch). Every path plans the prompt first
 * and refuses before storing anything when it cannot fit, so no message can brick a chat.
 */
export function chatTurnHandlers(deps: CoreDeps): TurnHandlers {
  const { chats } = deps;
  const open = (conversationId: string): Opened => {
    const conversation = chats.getConversation(conversationId);
    if (!conversation) throw new ServiceFailure('not_found', `no conversation "${conversationId}"`);
    return { conversation, settings: readSettings(conversation.settings, defaultSettings(chats)) };
  };
  return {
    'chat.forecast': ({ conversationId, content, settings }) => {
      if (conversationId === null) {
        const draft = settings ?? defaultSettings(chats);
        return forecastOf(planTurn(deps, turnsOf(draft, [], content), { settings: draft }));
      }
      const { conversation, settings: stored } = open(conversationId);
      return forecastOf(
        planTurn(deps, turnsOf(stored, branchOf(deps, conversation), content), { settings: stored }),
      );
    },
    'chat.send': (input) => send(deps, open(input.conversationId), input),
    'chat.regenerate': ({ conversationId, messageId }) => {
      const { conversation, settings } = open(conversationId);
      const all = chats.messages(conversationId);
      const target = all.find((m) => m.messageId === messageId);
      if (!target) throw new ServiceFailure('not_found', `no message "${messageId}" in this conversation`);
      const questionId = target.role === 'user' ? target.messageId : target.parentId;
      const question = all.find((m) => m.messageId === questionId);
      if (!question || question.role !== 'user')
        throw new ServiceFailure('invalid_input', 'only an answer to a question can be regenerated');
      const plan = planTurn(deps, turnsOf(settings, pathTo(all, question.messageId)), { settings });
      refuseIfTooLong(plan);
      const leafAtStart = conversation.leafMessageId;
      return runTurn(deps, {
        conversation,
        userMessageId: question.messageId,
        plan,
        how: { settings },
        leafAtStart,
      });
    },
    'chat.edit': ({ conversationId, messageId, content }) => {
      const { conversation, settings } = open(conversationId);
      const all = chats.messages(conversationId);
      const original = all.find((m) => m.messageId === messageId);
      if (!original || original.role !== 'user')
        throw new ServiceFailure('invalid_input', 'only a question of this conversation can be edited');
      const plan = planTurn(deps, turnsOf(settings, pathTo(all, original.parentId), content), { settings });
      refuseIfTooLong(plan);
      const question = chats.addMessage({
        conversationId,
        parentId: original.parentId,
        role: 'user',
        content,
      });
      chats.setLeaf(conversationId, question.messageId);
      return runTurn(deps, {
        conversation,
        userMessageId: question.messageId,
        plan,
        how: { settings },
        leafAtStart: question.messageId,
      });
    },
    'chat.cancel': ({ requestId }) => ({
      wasRunning: deps.runtime.cancel(requestId) || deps.remote.cancel(requestId),
    }),
  };
}

/** A conversation opened for a turn, with its settings read (defaults filling the gaps). */
interface Opened {
  conversation: ConversationRecord;
  settings: ConversationSettings;
}

function send(deps: CoreDeps, opened: Opened, input: MethodInput<'chat.send'>) {
  const { chats } = deps;
  const { conversation, settings } = opened;
  const how = {
    settings,
    ...(input.modelId ? { modelId: input.modelId } : {}),
    ...(input.sampling ? { sampling: input.sampling } : {}),
  };
  const plan = planTurn(deps, turnsOf(settings, branchOf(deps, conversation), input.content), how);
  refuseIfTooLong(plan);
  const question = chats.addMessage({
    conversationId: conversation.conversationId,
    parentId: conversation.leafMessageId,
    role: 'user',
    content: input.content,
  });
  chats.setLeaf(conversation.conversationId, question.messageId);
  if (conversation.title === NEW_TITLE && conversation.numMessages === 0)
    chats.renameConversation(conversation.conversationId, titleOf(input.content));
  return runTurn(deps, {
    conversation,
    userMessageId: question.messageId,
    plan,
    how,
    leafAtStart: question.messageId,
    ...(input.deadlineMs === undefined ? {} : { deadlineMs: input.deadlineMs }),
  });
}

import type { ChatPlan } from '../../runtime/forecast/plan-chat';
import type { ConversationRecord } from '../../history/queries/chat-records';
import type { ConversationSettings } from '../contract/chat-schemas';
import type { MethodInput } from '../contract/methods';
import { ServiceFailure } from '../contract/result';
import type { CoreDeps } from '../core-deps';
import type { Handlers } from '../service';
import { defaultSettings, readSettings } from '../chat/settings';
import { pathTo } from '../chat/tree';
import type { TurnSettings } from '../chat/turns';
import {
  NEW_TITLE,
  branchOf,
  forecastOf,
  planTurn,
  refuseIfTooLong,
  runTurn,
  titleOf,
  turnRequestId,
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
    'chat.forecast': async ({ conversationId, content, settings }) => {
      if (conversationId === null) {
        const draft = settings ?? defaultSettings(chats);
        return forecastOf(await planTurn(deps, turnsOf(draft, [], content), { settings: draft }));
      }
      const { conversation, settings: stored } = open(conversationId);
      return forecastOf(
        await planTurn(deps, turnsOf(stored, branchOf(deps, conversation), content), { settings: stored }),
      );
    },
    'chat.send': (input) => send(deps, () => open(input.conversationId), input),
    'chat.regenerate': (input) => regenerate(deps, open, input),
    'chat.edit': (input) => edit(deps, open, input),
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

/** A new version of an answer: the question's path is planned again and answered anew. */
async function regenerate(
  deps: CoreDeps,
  open: (conversationId: string) => Opened,
  { conversationId, messageId, requestId }: MethodInput<'chat.regenerate'>,
) {
  const { conversation, settings } = open(conversationId);
  const all = deps.chats.messages(conversationId);
  const target = all.find((m) => m.messageId === messageId);
  if (!target) throw new ServiceFailure('not_found', `no message "${messageId}" in this conversation`);
  const questionId = target.role === 'user' ? target.messageId : target.parentId;
  const question = all.find((m) => m.messageId === questionId);
  if (!question || question.role !== 'user')
    throw new ServiceFailure('invalid_input', 'only an answer to a question can be regenerated');
  const plan = await planTurn(deps, turnsOf(settings, pathTo(all, question.messageId)), { settings });
  refuseIfTooLong(plan);
  // Read after planning: a turn sent meanwhile moved the leaf.
  const leafAtStart = open(conversationId).conversation.leafMessageId;
  return runTurn(deps, {
    conversation,
    userMessageId: question.messageId,
    plan,
    how: { settings },
    leafAtStart,
    requestId: turnRequestId(deps, requestId),
  });
}

/** A new version of a question (a branch from its parent), answered at once. */
async function edit(
  deps: CoreDeps,
  open: (conversationId: string) => Opened,
  { conversationId, messageId, content, requestId }: MethodInput<'chat.edit'>,
) {
  const { chats } = deps;
  const { conversation, settings } = open(conversationId);
  const all = chats.messages(conversationId);
  const original = all.find((m) => m.messageId === messageId);
  if (!original || original.role !== 'user')
    throw new ServiceFailure('invalid_input', 'only a question of this conversation can be edited');
  const plan = await planTurn(deps, turnsOf(settings, pathTo(all, original.parentId), content), { settings });
  refuseIfTooLong(plan);
  open(conversationId); // still there after planning
  const id = turnRequestId(deps, requestId);
  const question = chats.addMessage({ conversationId, parentId: original.parentId, role: 'user', content });
  chats.setLeaf(conversationId, question.messageId);
  return runTurn(deps, {
    conversation,
    userMessageId: question.messageId,
    plan,
    how: { settings },
    leafAtStart: question.messageId,
    requestId: id,
  });
}

/** Plans made at most before a send gives up on a conversation other turns keep moving. */
const MAX_PLAN_ATTEMPTS = 3;

/**
 * Sends a question after the branch on screen. Planning may wait on the tokenizer thread, so
 * the conversation is read again afterwards: if another turn moved its leaf meanwhile, the plan
 * (made for the old branch) is made again for the new one.
 */
async function send(deps: CoreDeps, open: () => Opened, input: MethodInput<'chat.send'>) {
  for (let attempt = 1; ; attempt++) {
    const { conversation, settings } = open();
    const how: TurnSettings = {
      settings,
      ...(input.modelId ? { modelId: input.modelId } : {}),
      ...(input.sampling ? { sampling: input.sampling } : {}),
    };
    const plan = await planTurn(deps, turnsOf(settings, branchOf(deps, conversation), input.content), how);
    refuseIfTooLong(plan);
    const now = open().conversation;
    if (now.leafMessageId === conversation.leafMessageId) return startTurn(deps, now, plan, how, input);
    if (attempt >= MAX_PLAN_ATTEMPTS)
      throw new ServiceFailure('unavailable', 'other turns keep changing this conversation; send again');
  }
}

/** Stores the question after the conversation's leaf and runs the planned turn. */
function startTurn(
  deps: CoreDeps,
  conversation: ConversationRecord,
  plan: ChatPlan,
  how: TurnSettings,
  input: MethodInput<'chat.send'>,
) {
  const { chats } = deps;
  const requestId = turnRequestId(deps, input.requestId);
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
    requestId,
    ...(input.deadlineMs === undefined ? {} : { deadlineMs: input.deadlineMs }),
  });
}

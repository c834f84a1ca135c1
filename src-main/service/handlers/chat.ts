import type { ConversationRecord } from '../../history/queries/chat-records';
import { ServiceFailure } from '../contract/result';
import type { CoreDeps } from '../core-deps';
import type { Handlers } from '../service';
import { chatDefaults, defaultSettings, readSettings, saveDefaults, savePreset } from '../chat/settings';
import { exportJson, exportMarkdown, fileNameOf, parseImport } from '../chat/transfer';
import { newestLeafUnder } from '../chat/tree';
import { NEW_TITLE } from '../chat/turns';
import { conversationView, summaryOf } from '../chat/view';
import { chatTurnHandlers } from './chat-turns';

type ChatHandlers = Pick<Handlers, Extract<keyof Handlers, `chat.${string}`>>;

/**
 * Conversations kept across restarts: list, open (the branch on screen), create, rename,
 * search, settings and defaults, versions, export and import, delete; turns are in chat-turns.
 */
export function chatHandlers(deps: CoreDeps): ChatHandlers {
  const { chats } = deps;
  const conversationOrFail = (conversationId: string): ConversationRecord => {
    const conversation = chats.getConversation(conversationId);
    if (!conversation) throw new ServiceFailure('not_found', `no conversation "${conversationId}"`);
    return conversation;
  };
  const settingsOf = (c: ConversationRecord) => readSettings(c.settings, defaultSettings(chats));
  const isRunning = (requestId: string) =>
    deps.runtime.isInFlight(requestId) || deps.remote.isInFlight(requestId);
  const liveTimelines = () => new Map(deps.window.toArray().map((t) => [t.requestId, t]));
  const view = (conversationId: string) => {
    const conversation = conversationOrFail(conversationId);
    const live = liveTimelines();
    return conversationView(
      conversation,
      settingsOf(conversation),
      chats.messages(conversationId),
      (id) => live.get(id),
      isRunning,
    );
  };
  /** Every message with its timeline, the live window's while the writer has not stored it yet. */
  const messagesWithTimelines = (conversationId: string) => {
    const live = liveTimelines();
    return chats.messages(conversationId).map((m) => ({
      ...m,
      timeline: m.timeline ?? (m.requestId ? (live.get(m.requestId) ?? null) : null),
    }));
  };
  return {
    'chat.listConversations': () => chats.listConversations().map(summaryOf),
    'chat.getConversation': ({ conversationId }) => view(conversationId),
    'chat.createConversation': ({ title, settings }) =>
      summaryOf(
        chats.createConversation({
          title: title?.trim() || NEW_TITLE,
          settings: settings ?? defaultSettings(chats),
        }),
      ),
    'chat.renameConversation': ({ conversationId, title }) => {
      conversationOrFail(conversationId);
      chats.renameConversation(conversationId, title);
      return summaryOf(conversationOrFail(conversationId));
    },
    'chat.deleteConversation': async ({ conversationId }) => {
      const isDeleted = chats.deleteConversation(conversationId);
      // Its remembered context goes with it, but for pages another conversation shares.
      if (isDeleted) await deps.runtime.forgetConversationPages(conversationId);
      return { isDeleted };
    },
    'chat.search': ({ query, limit }) =>
      chats
        .search(query, limit ?? 100)
        .map((hit) => ({ conversation: summaryOf(hit.conversation), snippet: hit.snippet })),
    'chat.updateSettings': ({ conversationId, settings }) => {
      conversationOrFail(conversationId);
      chats.setSettings(conversationId, settings);
      return settings;
    },
    'chat.defaults': () => chatDefaults(chats, deps.runtime),
    'chat.setDefaults': ({ settings }) => {
      saveDefaults(chats, settings);
      return chatDefaults(chats, deps.runtime);
    },
    'chat.savePreset': ({ name, sampling }) => {
      const refusal = savePreset(chats, name, sampling);
      if (refusal) throw new ServiceFailure('invalid_input', refusal);
      return chatDefaults(chats, deps.runtime);
    },
    'chat.selectVersion': ({ conversationId, messageId }) => {
      conversationOrFail(conversationId);
      const all = chats.messages(conversationId);
      if (!all.some((m) => m.messageId === messageId))
        throw new ServiceFailure('not_found', `no message "${messageId}" in this conversation`);
      chats.setLeaf(conversationId, newestLeafUnder(all, messageId));
      return view(conversationId);
    },
    'chat.export': ({ conversationId, format }) => {
      const conversation = conversationOrFail(conversationId);
      const all = messagesWithTimelines(conversationId);
      const settings = settingsOf(conversation);
      return format === 'json'
        ? {
            fileName: fileNameOf(conversation.title, 'json'),
            text: exportJson(conversation, settings, all, Date.now(), isRunning),
          }
        : {
            fileName: fileNameOf(conversation.title, 'md'),
            text: exportMarkdown(conversation, settings, all),
          };
    },
    'chat.import': ({ fileName, text }) => {
      let parsed;
      try {
        parsed = parseImport(text, fileName);
      } catch (error) {
        throw new ServiceFailure('invalid_input', (error as Error).message);
      }
      return summaryOf(chats.importConversation(parsed.conversation, parsed.messages));
    },
    ...chatTurnHandlers(deps),
  };
}

import type { StoreApi } from 'zustand/vanilla';
import type { ConversationView } from '../../src-main/service/contract/chat-schemas';
import type { Bridge } from '../bridge/bridge';
import { itemsFromStored } from './chat-items';
import { activeAnswer } from './chat-send';
import type { ChatState } from './chat-store';

/** A file the user asked for, ready to save. */
export interface ExportedFile {
  fileName: string;
  text: string;
}

/** The conversation-list side of the chat store. */
export interface ConversationActions {
  loadConversations(): Promise<void>;
  openConversation(conversationId: string | null): Promise<void>;
  renameConversation(conversationId: string, title: string): Promise<boolean>;
  deleteConversation(conversationId: string): Promise<void>;
  search(query: string): Promise<void>;
  selectVersion(messageId: string): Promise<void>;
  exportConversation(conversationId: string, format: 'json' | 'markdown'): Promise<ExportedFile | null>;
  importConversation(fileName: string, text: string): Promise<void>;
}

/** List, open, rename, delete, search, versions, export and import; errors show in the page. */
export function conversationActions(
  store: StoreApi<ChatState>,
  bridge: Bridge,
  hooks: { beforeOpen(): void; afterOpen(): void },
): ConversationActions {
  const set = store.setState;
  const show = (view: ConversationView) =>
    set({
      notice: null,
      conversationId: view.conversation.conversationId,
      items: itemsFromStored(view.messages),
      settings: view.settings,
      error: null,
      sendError: null,
    });
  const actions: ConversationActions = {
    async loadConversations() {
      const result = await bridge.call('chat.listConversations', {});
      set(result.ok ? { conversations: result.value } : { error: result.error.message });
      const query = store.getState().searchQuery;
      if (query) await actions.search(query);
    },
    async openConversation(conversationId) {
      hooks.beforeOpen();
      if (conversationId === null) {
        const defaults = store.getState().defaults;
        set({
          conversationId: null,
          items: [],
          error: null,
          sendError: null,
          ...(defaults ? { settings: defaults.settings } : {}),
        });
      } else {
        const result = await bridge.call('chat.getConversation', { conversationId });
        if (!result.ok) return set({ error: result.error.message });
        show(result.value);
      }
      hooks.afterOpen();
    },
    async renameConversation(conversationId, title) {
      const result = await bridge.call('chat.renameConversation', { conversationId, title });
      if (!result.ok) {
        set({ error: result.error.message });
        return false;
      }
      set((s) => ({
        conversations: s.conversations.map((c) => (c.conversationId === conversationId ? result.value : c)),
      }));
      return true;
    },
    async deleteConversation(conversationId) {
      const result = await bridge.call('chat.deleteConversation', { conversationId });
      if (!result.ok) return set({ error: result.error.message });
      if (store.getState().conversationId === conversationId) await actions.openConversation(null);
      await actions.loadConversations();
    },
    async search(query) {
      set({ searchQuery: query });
      if (query.trim() === '') return set({ searchHits: null });
      const result = await bridge.call('chat.search', { query });
      if (store.getState().searchQuery !== query) return;
      set(result.ok ? { searchHits: result.value } : { error: result.error.message });
    },
    async selectVersion(messageId) {
      const { conversationId } = store.getState();
      if (!conversationId || activeAnswer(store.getState())) return;
      const result = await bridge.call('chat.selectVersion', { conversationId, messageId });
      if (!result.ok) return set({ error: result.error.message });
      show(result.value);
      hooks.afterOpen();
    },
    async exportConversation(conversationId, format) {
      const result = await bridge.call('chat.export', { conversationId, format });
      if (result.ok) return result.value;
      set({ error: result.error.message });
      return null;
    },
    async importConversation(fileName, text) {
      const result = await bridge.call('chat.import', { fileName, text });
      if (!result.ok) return set({ importError: result.error.message });
      set({ importError: null });
      await actions.loadConversations();
      await actions.openConversation(result.value.conversationId);
      set({ notice: `Imported “${result.value.title}”` });
    },
  };
  return actions;
}

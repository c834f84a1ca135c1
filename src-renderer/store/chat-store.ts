import { createStore } from 'zustand/vanilla';
import type { StoreApi } from 'zustand/vanilla';
import type { z } from 'zod';
import type { ConversationSummarySchema, PushedEvent, Sampling } from '../../src-main/service/contract';
import type { Bridge } from '../bridge';
import type { ChatItem } from './chat-items';
import { itemsFromStored } from './chat-items';
import { EarlyEvents } from './early-events';
import { applyRequestEvent, isRequestEvent } from './chat-events';
import { sendMessage, stopAnswer } from './chat-send';

/** A conversation as the sidebar lists it. */
export type ConversationSummary = z.infer<typeof ConversationSummarySchema>;

/** The chat: conversations, the open one's rows, the model and sampling the next send uses. */
export interface ChatState {
  conversations: ConversationSummary[];
  conversationId: string | null;
  items: ChatItem[];
  modelId: string | null;
  sampling: Sampling;
  error: string | null;
  loadConversations(): Promise<void>;
  openConversation(conversationId: string | null): Promise<void>;
  deleteConversation(conversationId: string): Promise<void>;
  send(content: string): Promise<void>;
  stop(): Promise<void>;
  setModel(modelId: string | null): void;
  setSampling(sampling: Sampling): void;
  onEvents(events: readonly PushedEvent[], receivedAt: number): void;
}

/** Called once per finished answer that has a client TTFT (to report it and patch the window). */
export type ClientTtftSink = (requestId: string, clientTtftMs: number) => void;

/** The chat store, talking to the service through `bridge`. */
export function createChatStore(bridge: Bridge, onClientTtft: ClientTtftSink): StoreApi<ChatState> {
  const early = new EarlyEvents();
  const store: StoreApi<ChatState> = createStore<ChatState>()((set, get) => ({
    conversations: [],
    conversationId: null,
    items: [],
    modelId: null,
    sampling: {},
    error: null,
    async loadConversations() {
      const result = await bridge.call('chat.listConversations', {});
      set(result.ok ? { conversations: result.value } : { error: result.error.message });
    },
    async openConversation(conversationId) {
      if (conversationId === null) return set({ conversationId: null, items: [], error: null });
      const result = await bridge.call('chat.getConversation', { conversationId });
      if (!result.ok) return set({ error: result.error.message });
      set({ conversationId, items: itemsFromStored(result.value.messages), error: null });
    },
    async deleteConversation(conversationId) {
      const result = await bridge.call('chat.deleteConversation', { conversationId });
      if (!result.ok) return set({ error: result.error.message });
      if (get().conversationId === conversationId) set({ conversationId: null, items: [] });
      await get().loadConversations();
    },
    send: (content) => sendMessage(store, bridge, early, content),
    stop: () => stopAnswer(store, bridge),
    setModel: (modelId) => set({ modelId }),
    setSampling: (sampling) => set({ sampling }),
    onEvents(events, receivedAt) {
      let items = get().items;
      for (const event of events) {
        if (!isRequestEvent(event)) continue;
        const next = applyRequestEvent(items, event, receivedAt);
        if (next === items) early.hold(event, receivedAt);
        else if (event.name === 'request.done') reportClientTtft(next, event.payload.requestId, onClientTtft);
        items = next;
      }
      if (items !== get().items) set({ items });
      if (events.some((e) => e.name === 'request.done')) void get().loadConversations();
    },
  }));
  return store;
}

function reportClientTtft(items: ChatItem[], requestId: string, sink: ClientTtftSink): void {
  const answer = items.find((item) => item.kind === 'assistant' && item.requestId === requestId);
  if (answer?.kind === 'assistant' && answer.clientTtftMs !== null && answer.sentAt !== null) {
    sink(requestId, answer.clientTtftMs);
  }
}

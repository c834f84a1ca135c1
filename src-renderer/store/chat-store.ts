import { createStore } from 'zustand/vanilla';
import type { StoreApi } from 'zustand/vanilla';
import type {
  ChatDefaults,
  ConversationSettings,
  ConversationSummary,
  SendForecast,
} from '../../src-main/service/contract/chat-schemas';
import type { PushedEvent } from '../../src-main/service/contract/events';
import type { Bridge } from '../bridge/bridge';
import type { AnswerItem, ChatItem } from './chat-items';
import { applyRequestEvent, isRequestEvent } from './chat-events';
import { editQuestion, regenerateAnswer, sendMessage, stopAnswer } from './chat-send';
import type { ConversationActions } from './chat-conversations';
import { conversationActions } from './chat-conversations';
import type { SettingsActions } from './chat-settings';
import { EMPTY_SETTINGS, settingsActions } from './chat-settings';

export type { ConversationSummary };

/** A conversation a search found, with the matching text (null: the title matched). */
export interface SearchHit {
  conversation: ConversationSummary;
  snippet: string | null;
}

/**
 * The chat: conversations, the open one's rows and settings, the composer's draft with its
 * send forecast, and the search. `settings` are the open conversation's (or, before the first
 * message, the draft chat's: the defaults for new chats).
 */
export interface ChatState extends ConversationActions, SettingsActions {
  conversations: ConversationSummary[];
  conversationId: string | null;
  items: ChatItem[];
  settings: ConversationSettings;
  defaults: ChatDefaults | null;
  draft: string;
  forecast: SendForecast | null;
  forecastError: string | null;
  searchQuery: string;
  searchHits: SearchHit[] | null;
  /** Something failed in the chat (shown above the messages). */
  error: string | null;
  /** Why the last send, regenerate or edit was refused (shown at the composer). */
  sendError: string | null;
  importError: string | null;
  /** A passing confirmation (imported, saved as default). */
  notice: string | null;
  /** The conversation settings panel is open beside the chat (it never blocks it). */
  isSettingsOpen: boolean;
  setSettingsOpen(isOpen: boolean): void;
  setDraft(text: string): void;
  send(content?: string): Promise<void>;
  regenerate(answerKey: string): Promise<void>;
  edit(questionKey: string, content: string): Promise<boolean>;
  stop(): Promise<void>;
  onEvents(events: readonly PushedEvent[], receivedAt: number): void;
}

/** Called once per finished answer that has a client TTFT (to report it and patch the window). */
export type ClientTtftSink = (requestId: string, clientTtftMs: number, clientE2eMs: number | null) => void;

/** The chat store, talking to the service through `bridge`. */
export function createChatStore(bridge: Bridge, onClientTtft: ClientTtftSink): StoreApi<ChatState> {
  const reported = new Set<string>();
  return createStore<ChatState>()((set, get, store) => {
    const settings = settingsActions(store, bridge);
    const turns = () => ({ store, bridge });
    return {
      conversations: [],
      conversationId: null,
      items: [],
      settings: EMPTY_SETTINGS,
      defaults: null,
      draft: '',
      forecast: null,
      forecastError: null,
      searchQuery: '',
      searchHits: null,
      error: null,
      sendError: null,
      importError: null,
      notice: null,
      isSettingsOpen: false,
      setSettingsOpen: (isOpen) => set({ isSettingsOpen: isOpen }),
      ...settings,
      ...conversationActions(store, bridge, {
        beforeOpen: () => settings.flushSettings(),
        afterOpen: () => settings.refreshForecast(),
      }),
      setDraft(text) {
        set({ draft: text });
        settings.refreshForecast();
      },
      send: (content) => sendMessage(turns(), content ?? get().draft),
      regenerate: (answerKey) => regenerateAnswer(turns(), answerKey),
      edit: (questionKey, content) => editQuestion(turns(), questionKey, content),
      stop: () => stopAnswer(store, bridge),
      onEvents(events, receivedAt) {
        let items = get().items;
        for (const event of events)
          if (isRequestEvent(event)) items = applyRequestEvent(items, event, receivedAt);
        if (items !== get().items) {
          set({ items });
          for (const item of items) if (item.kind === 'assistant') reportOnce(item, reported, onClientTtft);
        }
        if (events.some((e) => e.name === 'request.done')) {
          void get().loadConversations();
          settings.refreshForecast();
        }
      },
    };
  });
}

/**
 * Reports an answer's client figures once, when it is done and its timeline has come (the
 * service can only take them into a finished timeline). Answers loaded from history were not
 * sent by this client: they have no `sentAt` and report nothing.
 */
function reportOnce(answer: AnswerItem, reported: Set<string>, sink: ClientTtftSink): void {
  const { requestId, timeline } = answer;
  if (answer.status !== 'done' || timeline === null || requestId === null || reported.has(requestId)) return;
  if (answer.sentAt === null || answer.firstChunkAt === null) return;
  reported.add(requestId);
  sink(requestId, timeline.clientTtftMs!, timeline.clientE2eMs);
}

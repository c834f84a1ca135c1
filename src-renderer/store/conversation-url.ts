import type { StoreApi } from 'zustand/vanilla';
import type { ChatState } from './chat-store';

/** The page address's fragment key that names the open conversation: `#chat=<id>`. */
const FRAGMENT_KEY = 'chat';

/** The conversation an address's fragment names, or null (none, or another fragment). */
export function conversationIdOfFragment(hash: string): string | null {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const id = params.get(FRAGMENT_KEY);
  return id === null || id === '' ? null : id;
}

/** The fragment for `conversationId` (empty for a new, unsaved chat). */
export function fragmentOf(conversationId: string | null): string {
  return conversationId === null ? '' : `#${FRAGMENT_KEY}=${encodeURIComponent(conversationId)}`;
}

/** The window parts the URL sync uses (the page's window; a fake in unit tests). */
export interface UrlWindow {
  location: { hash: string; pathname: string; search: string };
  history: { state: unknown; replaceState(state: unknown, unused: string, url: string): void };
}

/**
 * Keeps the open conversation in the page address, so a reload (or a copied address) opens it
 * again: opens the one the address names now, then writes every change back with
 * `replaceState` (no history entry per chat switch). Returns the unsubscribe.
 */
export function followConversationInUrl(chat: StoreApi<ChatState>, win: UrlWindow): () => void {
  const named = conversationIdOfFragment(win.location.hash);
  if (named !== null) void chat.getState().openConversation(named);
  return chat.subscribe((state, previous) => {
    if (state.conversationId === previous.conversationId) return;
    const fragment = fragmentOf(state.conversationId);
    if (fragment === win.location.hash || (fragment === '' && win.location.hash === '')) return;
    const { pathname, search } = win.location;
    win.history.replaceState(win.history.state, '', `${pathname}${search}${fragment}`);
  });
}

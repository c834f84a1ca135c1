import { describe, expect, it, vi } from 'vitest';
import { createStore } from 'zustand/vanilla';
import type { ChatState } from '../../../src-renderer/store/chat-store';
import {
  conversationIdOfFragment,
  followConversationInUrl,
  fragmentOf,
} from '../../../src-renderer/store/conversation-url';
import type { UrlWindow } from '../../../src-renderer/store/conversation-url';

/** A window whose address is `/` plus `hash`, recording what replaceState writes. */
function fakeWindow(hash: string) {
  const location = { hash, pathname: '/', search: '' };
  const history = {
    state: null,
    replaceState: vi.fn((_state: unknown, _title: string, url: string) => {
      location.hash = url.includes('#') ? url.slice(url.indexOf('#')) : '';
    }),
  };
  return { location, history } as unknown as UrlWindow & {
    history: { replaceState: ReturnType<typeof vi.fn> };
  };
}

describe('the open conversation in the page address', () => {
  it('reads and writes the chat fragment, ids with odd characters included', () => {
    expect(conversationIdOfFragment(fragmentOf('a b/c'))).toBe('a b/c');
    expect(conversationIdOfFragment('')).toBeNull();
    expect(conversationIdOfFragment('#other=1')).toBeNull();
    expect(fragmentOf(null)).toBe('');
  });

  it('opens the conversation a reloaded address names, and writes each switch back', () => {
    const openConversation = vi.fn(async () => {});
    const chat = createStore<ChatState>(
      () => ({ conversationId: null, openConversation }) as unknown as ChatState,
    );
    const win = fakeWindow('#chat=c7');
    followConversationInUrl(chat, win);
    expect(openConversation).toHaveBeenCalledWith('c7');
    chat.setState({ conversationId: 'c7' });
    expect(win.history.replaceState).not.toHaveBeenCalled(); // the address already says c7
    chat.setState({ conversationId: 'c8' });
    expect(win.location.hash).toBe('#chat=c8');
    chat.setState({ conversationId: null });
    expect(win.location.hash).toBe('');
  });
});

import { useSlice, useStores } from '../../store/react';
import { ConversationRow } from './ConversationRow';

/** The stored conversations, newest first: search, new, import, and one row per conversation. */
export function ConversationList() {
  const conversations = useSlice('chat', (s) => s.conversations);
  const openId = useSlice('chat', (s) => s.conversationId);
  const open = useSlice('chat', (s) => s.openConversation);
  const query = useSlice('chat', (s) => s.searchQuery);
  const hits = useSlice('chat', (s) => s.searchHits);
  const search = useSlice('chat', (s) => s.search);
  const sorted = [...conversations].sort((a, b) => b.updatedWallMs - a.updatedWallMs);
  const rows = hits ?? sorted.map((conversation) => ({ conversation, snippet: null }));
  return (
    <aside className="conversations" aria-label="Conversations">
      <button type="button" className="primary" data-testid="chat-new" onClick={() => void open(null)}>
        New conversation
      </button>
      <input
        type="search"
        className="conversation-search"
        data-testid="conversation-search"
        aria-label="Search conversations"
        placeholder="Search conversations"
        value={query}
        onChange={(event) => void search(event.target.value)}
      />
      <ImportButton />
      {hits && hits.length === 0 && <p className="muted small-text">No conversation mentions “{query}”.</p>}
      <ul>
        {rows.map(({ conversation, snippet }) => (
          <ConversationRow
            key={conversation.conversationId}
            conversation={conversation}
            isOpen={conversation.conversationId === openId}
            snippet={snippet}
          />
        ))}
      </ul>
    </aside>
  );
}

/** Import a conversation exported as JSON; a bad file is refused with the reason, in place. */
function ImportButton() {
  const importConversation = useSlice('chat', (s) => s.importConversation);
  const importError = useSlice('chat', (s) => s.importError);
  const { chat } = useStores();
  const dismiss = () => chat.setState({ importError: null });
  return (
    <>
      <label className="button import-button">
        Import conversation…
        <input
          type="file"
          accept=".json,application/json"
          data-testid="conversation-import"
          className="offscreen"
          onChange={(event) => {
            const file = event.target.files?.[0];
            event.target.value = '';
            if (file) void file.text().then((text) => importConversation(file.name, text));
          }}
        />
      </label>
      {importError && (
        <p className="notice error wrap" data-testid="import-error" role="alert">
          {importError}{' '}
          <button type="button" className="quiet small" onClick={dismiss}>
            Dismiss
          </button>
        </p>
      )}
    </>
  );
}

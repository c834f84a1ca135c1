import { useSlice } from '../../store';
import { formatClock } from '../../components';

/** The stored conversations, newest first, with New and Delete. */
export function ConversationList() {
  const conversations = useSlice('chat', (s) => s.conversations);
  const openId = useSlice('chat', (s) => s.conversationId);
  const open = useSlice('chat', (s) => s.openConversation);
  const remove = useSlice('chat', (s) => s.deleteConversation);
  const sorted = [...conversations].sort((a, b) => b.updatedWallMs - a.updatedWallMs);
  return (
    <aside className="conversations" aria-label="Conversations">
      <button type="button" className="primary" data-testid="chat-new" onClick={() => void open(null)}>
        New conversation
      </button>
      <ul>
        {sorted.map((c) => (
          <li key={c.conversationId} className={c.conversationId === openId ? 'active' : ''}>
            <button type="button" className="conversation" onClick={() => void open(c.conversationId)}>
              <span className="title">{c.title || 'Untitled'}</span>
              <span className="meta">
                {c.numMessages} messages · {formatClock(c.updatedWallMs)}
              </span>
            </button>
            <button
              type="button"
              className="icon"
              aria-label={`Delete ${c.title}`}
              onClick={() => void remove(c.conversationId)}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
    </aside>
  );
}

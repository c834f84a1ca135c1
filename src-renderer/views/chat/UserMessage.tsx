import { useState } from 'react';
import type { KeyboardEvent } from 'react';
import type { UserItem } from '../../store/chat-items';
import { useSlice } from '../../store/react';
import { CopyButton } from '../../components/CopyButton';
import { VersionSwitcher } from './VersionSwitcher';

/** A question: its text, copy, edit (resend as a new branch) and its versions. */
export function UserMessage(props: { item: UserItem; isBusy: boolean }) {
  const { item, isBusy } = props;
  const edit = useSlice('chat', (s) => s.edit);
  const [editing, setEditing] = useState<string | null>(null);
  const submit = async () => {
    if (editing !== null && (await edit(item.key, editing))) setEditing(null);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void submit();
    }
    if (event.key === 'Escape') {
      event.stopPropagation();
      setEditing(null);
    }
  };
  return (
    <article
      className="message user"
      data-testid="message-user"
      data-version={item.version}
      data-num-versions={item.versionIds.length}
    >
      {editing === null ? (
        <div className="message-text">{item.text}</div>
      ) : (
        <div className="edit-box">
          <textarea
            data-testid="edit-input"
            aria-label="Edit message"
            value={editing}
            rows={Math.min(10, editing.split('\n').length + 1)}
            onChange={(event) => setEditing(event.target.value)}
            onKeyDown={onKeyDown}
            autoFocus
          />
          <div className="edit-actions">
            <span className="muted small-text">Sends as a new branch; the current one is kept.</span>
            <button type="button" className="small" onClick={() => setEditing(null)}>
              Cancel
            </button>
            <button
              type="button"
              className="primary small"
              data-testid="edit-send"
              disabled={isBusy || editing.trim() === ''}
              onClick={() => void submit()}
            >
              Send
            </button>
          </div>
        </div>
      )}
      <div className="message-actions">
        <VersionSwitcher versions={item} isBusy={isBusy} />
        <CopyButton testId="message-copy" text={() => item.text} />
        <button
          type="button"
          className="quiet small"
          data-testid="message-edit"
          disabled={isBusy || item.messageId === null || editing !== null}
          onClick={() => setEditing(item.text)}
        >
          Edit
        </button>
      </div>
    </article>
  );
}

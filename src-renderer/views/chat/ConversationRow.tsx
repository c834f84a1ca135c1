import { useState } from 'react';
import type { KeyboardEvent } from 'react';
import type { ConversationSummary } from '../../../src-main/service/contract/chat-schemas';
import { useSlice } from '../../store/react';
import { cancelOnEscape } from '../../components/cancel-on-escape';
import { Confirm } from '../../components/Confirm';
import { formatClock } from '../../components/format';
import { saveTextFile } from '../../components/save-file';

type Mode = 'idle' | 'renaming' | 'exporting' | 'confirm-delete';

/** The open row's icon buttons, in order: each opens its mode in place. */
const ROW_ACTIONS: readonly { mode: Mode; testId: string; title: string; icon: string }[] = [
  { mode: 'renaming', testId: 'conversation-rename', title: 'Rename', icon: '✎' },
  { mode: 'exporting', testId: 'conversation-export', title: 'Export', icon: '⤓' },
  { mode: 'confirm-delete', testId: 'conversation-delete', title: 'Delete', icon: '×' },
];

/** One conversation in the sidebar; the open one offers rename, export and delete (asked in place). */
export function ConversationRow(props: {
  conversation: ConversationSummary;
  isOpen: boolean;
  snippet?: string | null;
}) {
  const c = props.conversation;
  const open = useSlice('chat', (s) => s.openConversation);
  const [mode, setMode] = useState<Mode>('idle');
  return (
    <li
      className={props.isOpen ? 'active' : ''}
      data-testid="conversation-row"
      data-conversation-id={c.conversationId}
    >
      {mode === 'renaming' ? (
        <RenameBox conversation={c} onDone={() => setMode('idle')} />
      ) : (
        <button type="button" className="conversation" onClick={() => void open(c.conversationId)}>
          <span className="title">{c.title || 'Untitled'}</span>
          {props.snippet && <span className="snippet">{props.snippet}</span>}
          <span className="meta">
            {c.numMessages} messages · {formatClock(c.updatedWallMs)}
          </span>
        </button>
      )}
      {props.isOpen && mode === 'idle' && (
        <span className="row-actions">
          {ROW_ACTIONS.map((a) => (
            <button
              key={a.mode}
              type="button"
              className="icon"
              data-testid={a.testId}
              aria-label={`${a.title} ${c.title}`}
              title={a.title}
              onClick={() => setMode(a.mode)}
            >
              {a.icon}
            </button>
          ))}
        </span>
      )}
      {mode === 'exporting' && <ExportMenu conversation={c} onDone={() => setMode('idle')} />}
      {mode === 'confirm-delete' && <DeleteConfirm conversation={c} onDone={() => setMode('idle')} />}
    </li>
  );
}

function RenameBox(props: { conversation: ConversationSummary; onDone(): void }) {
  const rename = useSlice('chat', (s) => s.renameConversation);
  const [title, setTitle] = useState(props.conversation.title);
  const save = async () => {
    if (title.trim() === '' || title.trim() === props.conversation.title) return props.onDone();
    if (await rename(props.conversation.conversationId, title.trim())) props.onDone();
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') void save();
    if (event.key === 'Escape') {
      event.stopPropagation();
      props.onDone();
    }
  };
  return (
    <input
      className="rename-input"
      data-testid="conversation-title-input"
      aria-label="Conversation title"
      value={title}
      maxLength={200}
      autoFocus
      onChange={(event) => setTitle(event.target.value)}
      onKeyDown={onKeyDown}
      onBlur={() => void save()}
    />
  );
}

function ExportMenu(props: { conversation: ConversationSummary; onDone(): void }) {
  const exportConversation = useSlice('chat', (s) => s.exportConversation);
  const save = async (format: 'json' | 'markdown') => {
    const file = await exportConversation(props.conversation.conversationId, format);
    if (file)
      saveTextFile(file.fileName, file.text, format === 'json' ? 'application/json' : 'text/markdown');
    props.onDone();
  };
  return (
    <div className="row-panel" role="group" aria-label="Export" onKeyDown={cancelOnEscape(props.onDone)}>
      <button
        type="button"
        className="small"
        data-testid="export-json"
        onClick={() => void save('json')}
        autoFocus
      >
        JSON (with timelines)
      </button>
      <button
        type="button"
        className="small"
        data-testid="export-markdown"
        onClick={() => void save('markdown')}
      >
        Markdown
      </button>
      <button type="button" className="quiet small" onClick={props.onDone}>
        Cancel
      </button>
    </div>
  );
}

function DeleteConfirm(props: { conversation: ConversationSummary; onDone(): void }) {
  const remove = useSlice('chat', (s) => s.deleteConversation);
  return (
    <Confirm
      placement="row"
      label="Delete conversation"
      testId="delete-confirm"
      action="Delete"
      actionTestId="delete-confirm-yes"
      onConfirm={() => void remove(props.conversation.conversationId)}
      onCancel={props.onDone}
    >
      Delete “{props.conversation.title}” and its {props.conversation.numMessages} messages?
    </Confirm>
  );
}

import { useState } from 'react';
import type { KeyboardEvent } from 'react';
import { activeAnswer, useSlice } from '../../store';

/**
 * The message box. Enter sends, Shift+Enter starts a new line (Escape, which stops the answer,
 * is bound window-wide by the chat view). Send turns into Stop while answering.
 */
export function Composer() {
  const [draft, setDraft] = useState('');
  const isBusy = useSlice('chat', (s) => activeAnswer(s) !== null);
  const send = useSlice('chat', (s) => s.send);
  const stop = useSlice('chat', (s) => s.stop);
  const submit = () => {
    if (isBusy || draft.trim() === '') return;
    void send(draft);
    setDraft('');
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      submit();
    }
  };
  return (
    <div className="composer">
      <textarea
        data-testid="chat-input"
        aria-label="Message"
        placeholder="Message (Enter sends, Shift+Enter new line, Esc stops)"
        rows={3}
        value={draft}
        onChange={(event) => setDraft(event.target.value)}
        onKeyDown={onKeyDown}
      />
      {isBusy ? (
        <button type="button" className="stop" data-testid="chat-stop" onClick={() => void stop()}>
          Stop
        </button>
      ) : (
        <button
          type="button"
          className="primary"
          data-testid="chat-send"
          disabled={draft.trim() === ''}
          onClick={submit}
        >
          Send
        </button>
      )}
    </div>
  );
}

import type { KeyboardEvent } from 'react';
import { activeAnswer } from '../../store/chat-send';
import { useSlice } from '../../store/react';
import { ContextMeter, SendForecastLine } from './ContextMeter';
import { sendBlockOf } from './send-block';

/**
 * The message box. Enter sends, Shift+Enter starts a new line (Escape, which stops the answer,
 * is bound window-wide by the chat view). Send turns into Stop while answering, waits while the
 * connection is down, and stays off with a plain sentence while the draft cannot fit; a refused
 * send keeps the typed text and says why.
 */
export function Composer() {
  const draft = useSlice('chat', (s) => s.draft);
  const setDraft = useSlice('chat', (s) => s.setDraft);
  const forecast = useSlice('chat', (s) => s.forecast);
  const forecastError = useSlice('chat', (s) => s.forecastError);
  const sendError = useSlice('chat', (s) => s.sendError);
  const isBusy = useSlice('chat', (s) => activeAnswer(s) !== null);
  const isOffline = useSlice('ui', (s) => s.connection === 'lost');
  const send = useSlice('chat', (s) => s.send);
  const stop = useSlice('chat', (s) => s.stop);
  const block = sendBlockOf(draft, forecast);
  const submit = () => {
    if (isBusy || isOffline || block !== null || draft.trim() === '') return;
    void send(draft);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      submit();
    }
  };
  return (
    <div className="composer">
      {sendError && (
        <p className="notice error wrap" data-testid="send-error" role="alert">
          {sendError}
        </p>
      )}
      <div className="composer-row">
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
            disabled={draft.trim() === '' || isOffline || block !== null}
            title={isOffline ? 'Reconnecting to First Frame… your text stays here.' : undefined}
            onClick={submit}
          >
            Send
          </button>
        )}
      </div>
      {block && (
        <p className="notice error wrap" data-testid="send-block" role="status">
          {block}
        </p>
      )}
      <div className="composer-info">
        <ContextMeter forecast={forecast} />
        {block === null && <SendForecastLine forecast={forecast} />}
        {forecastError && !isOffline && block === null && (
          <p className="muted wrap" data-testid="forecast-error">
            No forecast: {forecastError}
          </p>
        )}
      </div>
    </div>
  );
}

import type { AnswerItem } from '../../store';
import { AnswerStats } from './AnswerStats';

/** One answer: streamed text, its waiting state, then its stats. */
export function AnswerView(props: { answer: AnswerItem }) {
  const a = props.answer;
  return (
    <article
      className={`message assistant status-${a.status}`}
      data-testid="message-assistant"
      data-status={a.status}
      data-request-id={a.requestId ?? ''}
    >
      <div className="message-text">{a.text || (a.status === 'done' ? '(no text)' : '')}</div>
      <WaitingLine answer={a} />
      {a.error && <p className="notice error">{a.error}</p>}
      {a.timeline && <AnswerStats timeline={a.timeline} clientTtftMs={a.clientTtftMs} />}
    </article>
  );
}

function WaitingLine(props: { answer: AnswerItem }) {
  const a = props.answer;
  if (a.status === 'sending') return <p className="waiting">sending…</p>;
  if (a.status !== 'waiting')
    return a.isStopRequested && a.status === 'streaming' ? <p className="waiting">stopping…</p> : null;
  const position = a.queuePosition;
  const where =
    position === null
      ? 'waiting for a seat…'
      : position === 0
        ? 'queued: next in line'
        : `queued: ${position} ahead`;
  return (
    <p className="waiting" data-testid="queue-position" data-value={position ?? ''}>
      {where}
    </p>
  );
}

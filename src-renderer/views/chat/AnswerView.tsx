import type { AnswerItem } from '../../store/chat-items';
import { useSlice } from '../../store/react';
import { CopyButton } from '../../components/CopyButton';
import { Markdown } from '../../components/markdown/Markdown';
import { AnswerModel } from './AnswerModel';
import { AnswerStats } from './AnswerStats';
import { FINISH_EXPLANATIONS, FINISH_LABELS } from './finish-labels';
import { regenerateNote } from './regenerate-note';
import { VersionSwitcher } from './VersionSwitcher';

/** One answer: dropped-context marker, streamed text, its waiting state, then stats and actions. */
export function AnswerView(props: { answer: AnswerItem; isBusy: boolean }) {
  const a = props.answer;
  const regenerate = useSlice('chat', (s) => s.regenerate);
  const sampling = useSlice('chat', (s) => s.settings.sampling);
  const effective = useSlice('chat', (s) => s.defaults?.effective);
  const isFinished = a.status === 'done' || a.status === 'failed';
  const finishReason = a.finishReason ?? a.timeline?.finishReason ?? (a.status === 'failed' ? 'error' : null);
  return (
    <>
      {a.numDroppedMessages > 0 && <DroppedMarker numDropped={a.numDroppedMessages} />}
      <article
        className={`message assistant status-${a.status}`}
        data-testid="message-assistant"
        data-status={a.status}
        data-request-id={a.requestId ?? ''}
        data-finish-reason={isFinished ? (finishReason ?? '') : undefined}
        data-version={a.version}
        data-num-versions={a.versionIds.length}
      >
        <AnswerModel modelId={a.timeline?.modelId ?? a.forecast?.modelId ?? null} timeline={a.timeline} />
        <div className="message-text">
          {a.text ? (
            <Markdown text={a.text} isStreaming={!isFinished} />
          ) : a.status === 'done' ? (
            <span className="muted">(no text)</span>
          ) : null}
        </div>
        <WaitingLine answer={a} />
        {isFinished && !a.timeline && finishReason && finishReason !== 'stop' && (
          <p className="notice wrap" data-testid="answer-finish" data-value={finishReason}>
            {FINISH_LABELS[finishReason]}: {FINISH_EXPLANATIONS[finishReason]}
          </p>
        )}
        {a.error && <p className="notice error wrap">{a.error}</p>}
        {a.timeline && (
          <AnswerStats timeline={a.timeline} clientTtftMs={a.clientTtftMs} forecast={a.forecast} />
        )}
        {isFinished && (
          <div className="message-actions">
            <VersionSwitcher versions={a} isBusy={props.isBusy} />
            <CopyButton testId="message-copy" text={() => a.text} />
            <button
              type="button"
              className="quiet small"
              data-testid="message-regenerate"
              disabled={props.isBusy}
              title={regenerateNote(sampling, effective)}
              onClick={() => void regenerate(a.key)}
            >
              Regenerate
            </button>
          </div>
        )}
      </article>
    </>
  );
}

/** The marker where older turns were left out to fit the context, with the way to change it. */
function DroppedMarker(props: { numDropped: number }) {
  const open = useSlice('chat', (s) => s.setSettingsOpen);
  return (
    <div className="context-marker" data-testid="context-dropped" data-value={props.numDropped} role="note">
      <span>
        The {props.numDropped} oldest message{props.numDropped === 1 ? ' was' : 's were'} left out of this
        answer&apos;s prompt to fit the model&apos;s context.
      </span>
      <button type="button" className="quiet small" onClick={() => open(true)}>
        Change in conversation settings
      </button>
    </div>
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

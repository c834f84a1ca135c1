import type { Timeline } from '../../../src-main/telemetry/timeline/schema';
import type { AnswerFigures } from './answer-figures';
import { FINISH_EXPLANATIONS, FINISH_LABELS } from './finish-labels';
import { formatMs, formatSignedMs } from '../../components/format';
import { Term } from '../../components/Term';

/**
 * The window's own TTFT and the transport difference: the same two figures under a local and
 * a remote answer (the server TTFT beside them is what differs).
 */
export function WindowTtftSpans(props: { figures: AnswerFigures }) {
  const f = props.figures;
  return (
    <>
      <span title="This window's Send → first chunk received, on the window's own clock">
        in this window{' '}
        <b data-testid="client-ttft" data-ms={f.clientTtftMs ?? ''}>
          {formatMs(f.clientTtftMs)}
        </b>
      </span>
      <span>
        on its way to the window (<Term name="transport" />){' '}
        <b data-testid="transport-ms">{formatSignedMs(f.transportMs)}</b>
      </span>
    </>
  );
}

/** Decode speed and, as a quiet label, how the answer ended: the last figures under any answer. */
export function RateAndFinishSpans(props: { timeline: Timeline; figures: AnswerFigures }) {
  const { finishReason } = props.timeline;
  const tokensPerS = props.figures.tokensPerS;
  return (
    <>
      <span>
        {tokensPerS === null ? '– ' : `${tokensPerS.toFixed(1)} `}
        tokens a second (<Term name="tok/s" />)
      </span>
      <span
        className={`finish finish-${finishReason}`}
        data-testid="finish-reason"
        data-value={finishReason}
        title={FINISH_EXPLANATIONS[finishReason]}
      >
        {FINISH_LABELS[finishReason]}
      </span>
    </>
  );
}

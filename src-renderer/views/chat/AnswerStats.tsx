import type { Timeline } from '../../../src-main/telemetry/timeline/schema';
import { phasesOf } from '../../parts';
import { answerFigures } from './answer-figures';
import { TtftBar, formatMs, formatSignedMs } from '../../components';

/**
 * What sits under every finished answer: its TTFT bar, client vs server TTFT and the transport
 * difference, cached tokens n of N, tokens/s and the finish reason.
 */
export function AnswerStats(props: { timeline: Timeline; clientTtftMs: number | null }) {
  const t = props.timeline;
  const f = answerFigures(t, props.clientTtftMs);
  return (
    <div className="answer-stats">
      {t.ttftMs !== null && <TtftBar values={phasesOf(t)} />}
      <div className="answer-figures">
        <span title="Server TTFT: arrival at the main process → first chunk flushed to the transport">
          server TTFT{' '}
          <b data-testid="server-ttft" data-ms={f.serverTtftMs ?? ''}>
            {formatMs(f.serverTtftMs)}
          </b>
        </span>
        <span title="Client TTFT: this window's send → first chunk received, on its own clock">
          client{' '}
          <b data-testid="client-ttft" data-ms={f.clientTtftMs ?? ''}>
            {formatMs(f.clientTtftMs)}
          </b>
        </span>
        <span title="client − server: time spent in the transport and the renderer">
          transport <b data-testid="transport-ms">{formatSignedMs(f.transportMs)}</b>
        </span>
        <span data-testid="cached-tokens" data-value={t.numCachedTokens}>
          cached {t.numCachedTokens} of {t.numPromptTokens} tokens
        </span>
        <span>{f.tokensPerS === null ? '– tok/s' : `${f.tokensPerS.toFixed(1)} tok/s`}</span>
        <span
          className={`finish finish-${t.finishReason}`}
          data-testid="finish-reason"
          data-value={t.finishReason}
        >
          {t.finishReason}
        </span>
      </div>
      {t.errorMessage && <p className="notice error">{t.errorMessage}</p>}
    </div>
  );
}

import type { SendForecast } from '../../../src-main/service/contract/chat-schemas';
import type { Timeline } from '../../../src-main/telemetry/timeline/schema';
import { barPhasesOf, phasesOf } from '../../parts/phase-values';
import { answerFigures } from './answer-figures';
import type { AnswerFigures } from './answer-figures';
import { RateAndFinishSpans, WindowTtftSpans } from './FigureSpans';
import { RemoteAnswerStats } from './RemoteAnswerStats';
import { whySlow } from './why-slow';
import { formatMs } from '../../components/format';
import { SimpleTtftBar } from '../../components/SimpleTtftBar';
import { Term } from '../../components/Term';
import { TtftBar } from '../../components/TtftBar';
import { useSlice } from '../../store/react';
import { plainSentence } from './plain-sentence';
import { FINISH_EXPLANATIONS, FINISH_LABELS } from './finish-labels';

/**
 * What sits under every finished answer: its TTFT bar, server vs client TTFT and the transport
 * difference, the forecast beside the measured TTFT, cached tokens n of N, tokens/s and, as a
 * quiet label, how it ended.
 */
export function AnswerStats(props: {
  timeline: Timeline;
  clientTtftMs: number | null;
  forecast: SendForecast | null;
}) {
  const t = props.timeline;
  const mode = useSlice('ui', (s) => s.preferences.viewMode);
  if (t.remote) return <RemoteAnswerStats timeline={t} clientTtftMs={props.clientTtftMs} />;
  const f = answerFigures(t, props.clientTtftMs);
  if (mode === 'simple') return <SimpleAnswerStats timeline={t} figures={f} />;
  return (
    <div className="answer-stats">
      {t.ttftMs !== null && <TtftBar values={barPhasesOf(t)} />}
      <div className="answer-figures">
        <span title="Arrival at First Frame → first chunk sent to the window">
          first word at the app (<Term name="TTFT" />){' '}
          <b data-testid="server-ttft" data-ms={f.serverTtftMs ?? ''}>
            {formatMs(f.serverTtftMs)}
          </b>
        </span>
        <WindowTtftSpans figures={f} />
        <ForecastVsMeasured forecast={props.forecast} measuredMs={f.serverTtftMs} />
        <span
          data-testid="cached-tokens"
          data-value={t.numCachedTokens}
          title="Prompt tokens whose context pages were reused"
        >
          reused {t.numCachedTokens} of {t.numPromptTokens} prompt tokens
        </span>
        <RateAndFinishSpans timeline={t} figures={f} />
      </div>
      <WhySlow timeline={t} />
      {t.errorMessage && <p className="notice error wrap">{t.errorMessage}</p>}
    </div>
  );
}

/**
 * Simple view: the bar in four plain groups (the window's own wait when it has one), the
 * sentences on where it went and the speed after it, and how the answer ended.
 */
function SimpleAnswerStats(props: { timeline: Timeline; figures: AnswerFigures }) {
  const t = props.timeline;
  const sentence = plainSentence(t, props.figures);
  return (
    <div className="answer-stats">
      {t.ttftMs !== null && <SimpleTtftBar values={phasesOf(t)} transportMs={props.figures.transportMs} />}
      <p className="plain-sentence">
        {sentence && <span data-testid="plain-sentence">{sentence} </span>}
        <span
          className={`finish finish-${t.finishReason}`}
          data-testid="finish-reason"
          data-value={t.finishReason}
          title={FINISH_EXPLANATIONS[t.finishReason]}
        >
          {FINISH_LABELS[t.finishReason]}
        </span>
      </p>
      {t.errorMessage && <p className="notice error wrap">{t.errorMessage}</p>}
    </div>
  );
}

/** Why the first token took as long as it did, one sentence per cause. */
function WhySlow(props: { timeline: Timeline }) {
  const reasons = whySlow(props.timeline, props.timeline.conversationId);
  if (reasons.length === 0) return null;
  return (
    <ul className="why-slow" data-testid="why-slow" aria-label="Why the first token took this long">
      {reasons.map((r) => (
        <li key={r.kind} data-kind={r.kind}>
          {r.text}
        </li>
      ))}
    </ul>
  );
}

/** Below this gap the difference reads in ms: a percentage of a few ms says little. */
const ABSOLUTE_BELOW_MS = 20;

/** "forecast ≈ 120 ms (actual 12% longer)", or "(actual 3.2 ms longer)" for a small gap. */
function ForecastVsMeasured(props: { forecast: SendForecast | null; measuredMs: number | null }) {
  const estMs = props.forecast?.estTtftMs ?? null;
  if (estMs === null || props.measuredMs === null) return null;
  const errorShare = (props.measuredMs - estMs) / Math.max(estMs, 1e-9);
  return (
    <span
      data-testid="forecast-vs-measured"
      data-forecast-ms={estMs.toFixed(3)}
      data-measured-ms={props.measuredMs.toFixed(3)}
      title="What the send forecast predicted from the cached pages and the measured prefill rate"
    >
      forecast <b>≈ {formatMs(estMs)}</b> (actual{' '}
      {Math.abs(props.measuredMs - estMs) < ABSOLUTE_BELOW_MS
        ? formatMs(Math.abs(props.measuredMs - estMs))
        : `${Math.abs(errorShare * 100).toFixed(0)}%`}{' '}
      {errorShare >= 0 ? 'longer' : 'shorter'})
    </span>
  );
}

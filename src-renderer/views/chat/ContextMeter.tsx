import type { SendForecast } from '../../../src-main/service/contract/chat-schemas';
import { formatCount, formatMs } from '../../components/format';
import { Term } from '../../components/Term';
import { useSlice } from '../../store/react';
import { diskReadWords, simpleForecast } from './forecast-words';

/**
 * How full the model's context would be with the next request: tokens of the prompt (system
 * prompt, the turns that fit, the draft) against the most a request may carry.
 */
export function ContextMeter(props: { forecast: SendForecast | null }) {
  const f = props.forecast;
  if (!f)
    return <div className="context-meter muted" data-testid="context-meter" data-used="" data-limit="" />;
  if (f.remote)
    return (
      <div
        className="context-meter muted"
        data-testid="context-meter"
        data-used=""
        data-limit=""
        title={f.remote.note}
      >
        remote model: the server fits the context
      </div>
    );
  const share = Math.min(1, f.numPromptTokens / Math.max(1, f.promptLimit));
  const isOver = f.numPromptTokens > f.promptLimit;
  return (
    <div
      className={isOver ? 'context-meter over' : 'context-meter'}
      data-testid="context-meter"
      data-used={f.numPromptTokens}
      data-limit={f.promptLimit}
      title={`The next request: ${formatCount(f.numPromptTokens)} prompt tokens; the model takes at most ${formatCount(f.promptLimit)} (context ${formatCount(f.contextTokens)} tokens, prompt and answer together)`}
    >
      <progress className="meter-bar" value={share} max={1} aria-label="Context used" />
      <span>
        context {formatCount(f.numPromptTokens)} / {formatCount(f.promptLimit)} tokens
        {f.numDroppedMessages > 0 && ` · ${f.numDroppedMessages} oldest left out`}
      </span>
    </div>
  );
}

const LOCAL_TITLES = {
  simple: 'Estimated from the reading speed measured on this machine.',
  expert:
    'Reused: prompt tokens whose context pages are cached now. New: tokens the prefill must compute. The estimate uses the prefill rate measured on this machine.',
} as const;

/**
 * Expert: "reuses 96 of 120 tokens (6 pages), ~24 new tokens, est. TTFT ≈ 18 ms"; Simple: the
 * same forecast in words ("First word in about 18 ms: 24 new tokens to read, 96 remembered").
 */
export function SendForecastLine(props: { forecast: SendForecast | null }) {
  const isExpert = useSlice('ui', (s) => s.preferences.viewMode === 'expert');
  const f = props.forecast;
  if (!f) return null;
  return (
    <div
      className="send-forecast"
      data-testid="send-forecast"
      data-cached-tokens={f.numCachedTokens}
      data-new-tokens={f.numNewTokens}
      data-ttft-ms={f.estTtftMs === null ? '' : f.estTtftMs.toFixed(3)}
      title={f.remote ? f.remote.note : LOCAL_TITLES[isExpert ? 'expert' : 'simple']}
    >
      {isExpert ? <ExpertForecast forecast={f} /> : simpleForecast(f)}
    </div>
  );
}

/** The forecast in Expert's terms: pages reused, new tokens, the estimated TTFT and its waits. */
function ExpertForecast(props: { forecast: SendForecast }) {
  const f = props.forecast;
  if (f.remote)
    return (
      <>
        est. <Term name="TTFT" />{' '}
        {f.estTtftMs === null
          ? 'unknown until an answer from this endpoint is measured'
          : `≈ ${formatMs(f.estTtftMs)} (median of its recent answers, at this app)`}
      </>
    );
  return (
    <>
      reuses {formatCount(f.numCachedTokens)} of {formatCount(f.numPromptTokens)} tokens ({f.numCachedPages}{' '}
      {f.numCachedPages === 1 ? 'page' : 'pages'}), ~{formatCount(f.numNewTokens)} new tokens, est.{' '}
      <Term name="TTFT" />{' '}
      {f.estTtftMs === null ? 'unknown until the first answer is measured' : `≈ ${formatMs(f.estTtftMs)}`}
      {f.estTtftMs !== null && waitsOf(f)}
    </>
  );
}

/** What the estimate includes besides the prompt: loading the model, and the waits it knows. */
function waitsOf(f: SendForecast): string {
  const parts = [
    f.isSlotCold ? 'loading the model' : null,
    diskReadWords(f),
    f.estWaitMs !== null && f.estWaitMs >= 0.05
      ? `${formatMs(f.estWaitMs)} waiting${f.numAhead > 0 ? ` behind ${f.numAhead} queued` : ' for the step in flight'}`
      : null,
  ].filter((p): p is string => p !== null);
  return parts.length > 0 ? ` (includes ${parts.join(' and ')})` : '';
}

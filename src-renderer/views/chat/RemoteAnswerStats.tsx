import type { RemoteFacts } from '../../../src-main/telemetry/timeline/remote-facts';
import type { Timeline } from '../../../src-main/telemetry/timeline/schema';
import { phasesOf } from '../../parts/phase-values';
import { answerFigures } from './answer-figures';
import { RateAndFinishSpans, WindowTtftSpans } from './FigureSpans';
import { formatMs } from '../../components/format';
import { Term } from '../../components/Term';
import { TtftBar } from '../../components/TtftBar';

/** What each report source gave, for the line under a remote answer. */
const REPORTED: Record<RemoteFacts['reportSource'], string> = {
  'first-frame-timings': 'every part of its TTFT',
  'llama.cpp-timings': 'its prompt time (prefill) and decode time',
  'ollama-durations': 'its load, prompt and decode durations',
  'vllm-request-metrics': 'its queue time and scheduled → first token',
  none: 'no timings: the whole wait stays unexplained (unattributed)',
};

/**
 * Under an answer from a remote engine: the TTFT bar at this app's boundary (its send → first
 * content received), with the parts the server reported and the rest unattributed; what the
 * server reported and how its stamps were placed; the window's own TTFT beside.
 */
export function RemoteAnswerStats(props: { timeline: Timeline; clientTtftMs: number | null }) {
  const t = props.timeline;
  const r = t.remote!;
  const f = answerFigures(t, props.clientTtftMs);
  return (
    <div className="answer-stats" data-testid="remote-answer-stats" data-endpoint={r.endpointId}>
      {t.ttftMs !== null && <TtftBar values={phasesOf(t)} />}
      <div className="answer-figures">
        <span title={`This app sent the request → the first content from ${r.endpointName} arrived`}>
          <Term name="TTFT" /> at this app{' '}
          <b data-testid="server-ttft" data-ms={f.serverTtftMs ?? ''}>
            {formatMs(f.serverTtftMs)}
          </b>
        </span>
        <span title="The server's own TTFT (its arrival → its first token), when it reports one">
          server says <b data-testid="remote-server-ttft">{formatMs(r.serverTtftMs)}</b>
        </span>
        <WindowTtftSpans figures={f} />
        <RateAndFinishSpans timeline={t} figures={f} />
      </div>
      <p className="muted" data-testid="remote-report">
        {r.endpointName} ({r.engine}) reported {REPORTED[r.reportSource]}.{' '}
        {r.placementProblem
          ? `Its stamps could not be placed inside this app's wait (${r.placementProblem}); its parts are left out.`
          : r.placementUncertaintyMs !== null
            ? `Its arrival is placed ${formatMs(r.placedArrivalMs)} after the send, ± ${formatMs(r.placementUncertaintyMs)}; network and unreported server work are unattributed.`
            : ''}
      </p>
      {t.errorMessage && <p className="notice error wrap">{t.errorMessage}</p>}
    </div>
  );
}

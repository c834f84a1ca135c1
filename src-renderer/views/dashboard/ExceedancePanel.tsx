import type { LatencyReport } from '../../../src-main/telemetry/report/types';
import { formatMs, formatShare } from '../../components/format';
import { TtftBar } from '../../components/TtftBar';

/** The requests above p95 TTFT against the rest: what the slow ones share, and their parts. */
export function ExceedancePanel(props: { report: LatencyReport }) {
  const x = props.report.exceedance;
  if (!x) return <p className="empty-chart">No p95 yet.</p>;
  return (
    <div className="exceedance" data-testid="exceedance">
      <p>{x.sentence}</p>
      <div className="exceedance-rows">
        <span className="label">
          above {formatMs(x.thresholdMs)} · {x.slow.numRequests} req · mean {formatMs(x.slow.meanTtftMs)}
        </span>
        {x.slow.numRequests > 0 && <TtftBar values={x.slow.partMeansMs} testId="exceedance-slow-bar" />}
        <span className="label">
          the rest · {x.rest.numRequests} req · mean {formatMs(x.rest.meanTtftMs)}
        </span>
        <TtftBar values={x.rest.partMeansMs} testId="exceedance-rest-bar" />
      </div>
      <p className="muted">
        cached share: slow {formatShare(x.slow.cachedTokenShare)} vs rest{' '}
        {formatShare(x.rest.cachedTokenShare)} · cold slot: slow {formatShare(x.slow.coldSlotShare)} vs rest{' '}
        {formatShare(x.rest.coldSlotShare)}
      </p>
    </div>
  );
}

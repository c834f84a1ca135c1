import type { LatencyReport } from '../../../src-main/telemetry/report/types';
import { groupSlicesOf } from '../../parts/simple-groups';
import { formatMs, formatShare } from '../../components/format';
import { SimpleTtftBar } from '../../components/SimpleTtftBar';

/**
 * Simple's "where the wait went": the mean time to the first word split into the four plain
 * groups (means decompose, so the groups add up to the mean shown in the total row), the
 * parts inside each named on hover, and which group took the most.
 */
export function GroupShares(props: { report: LatencyReport }) {
  const parts = props.report.parts;
  const slices = groupSlicesOf(parts.meansMs);
  if (parts.meanTtftMs === null || slices.length === 0) return <p className="empty-chart">No answers yet.</p>;
  const top = slices.reduce((a, b) => (b.ms > a.ms ? b : a));
  return (
    <div className="part-shares" data-testid="group-shares">
      <p data-testid="group-top" data-value={top.group.key}>
        Most of the wait was <b>{top.group.label}</b>: {formatMs(top.ms)} of {formatMs(parts.meanTtftMs)} on
        average ({formatShare(top.share)}). {top.group.explanation}
      </p>
      <SimpleTtftBar values={parts.meansMs} />
      <table className="data-table compact">
        <tbody>
          {slices.map((slice) => (
            <tr key={slice.group.key} data-testid={`group-mean-${slice.group.key}`} data-ms={slice.ms}>
              <th scope="row" title={`${slice.group.explanation} (${slice.detail})`}>
                <span className="swatch" style={{ backgroundColor: slice.group.color }} />
                {slice.group.label}
              </th>
              <td>{formatMs(slice.ms)}</td>
              <td>{formatShare(slice.share)}</td>
            </tr>
          ))}
          <tr className="total" data-testid="group-mean-total" data-ms={parts.meanTtftMs}>
            <th scope="row">time to first word, mean</th>
            <td>{formatMs(parts.meanTtftMs)}</td>
            <td>
              {parts.numRequests} {parts.numRequests === 1 ? 'answer' : 'answers'}
            </td>
          </tr>
        </tbody>
      </table>
    </div>
  );
}

import type { LatencyReport } from '../../../src-main/telemetry/report/types';
import { PART_COLORS, PART_LABELS, PHASES } from '../../parts/part-colors';
import { formatMs, formatShare } from '../../components/format';
import { TtftBar } from '../../components/TtftBar';

/**
 * Mean of each TTFT part and its share of the mean TTFT (means decompose, percentiles do not),
 * as one stacked bar and a table.
 */
export function PartShares(props: { report: LatencyReport }) {
  const parts = props.report.parts;
  if (parts.meanTtftMs === null) return <p className="empty-chart">No TTFT yet.</p>;
  return (
    <div className="part-shares">
      <TtftBar values={parts.meansMs} testId="mean-ttft-bar" />
      <table className="data-table compact">
        <tbody>
          {PHASES.filter((p) => (parts.meansMs[p] ?? 0) > 0).map((phase) => (
            <tr key={phase}>
              <th scope="row">
                <span className="swatch" style={{ backgroundColor: PART_COLORS[phase] }} />
                {PART_LABELS[phase]}
              </th>
              <td>{formatMs(parts.meansMs[phase])}</td>
              <td>{formatShare(parts.shares[phase])}</td>
            </tr>
          ))}
          <tr className="total">
            <th scope="row">mean TTFT</th>
            <td>{formatMs(parts.meanTtftMs)}</td>
            <td>
              {parts.numRequests} {parts.numRequests === 1 ? 'request' : 'requests'}
            </td>
          </tr>
        </tbody>
      </table>
    </div>
  );
}

import type { LatencyReport } from '../../../src-main/telemetry/report/types';
import { formatCount, formatMs, formatShare } from '../../components/format';
import { dominantWordsOf } from './dominant-words';
import { phaseRowsOf } from './phase-rows';

/**
 * A trace's requests in seven phases, from sending the request to the last word, by plain
 * names: each phase's mean, its share of the whole request (the shares add to 100%) and the
 * app's finer parts inside it; then what took longest before the first word.
 */
export function TracePhasesPanel(props: { report: LatencyReport }) {
  const r = props.report;
  const phases = (r.boundary === 'client' ? r.client?.phases : null) ?? r.serverPhases;
  const words = dominantWordsOf(phases);
  const broken = r.client?.broken;
  return (
    <div data-testid="boundary-phases" data-boundary={phases.boundary}>
      <p className="muted">
        Means over {formatCount(phases.numRequests)} {phases.numRequests === 1 ? 'request' : 'requests'},
        timed{' '}
        {phases.boundary === 'client' ? 'from the sender’s side' : 'from when the app received each request'}.
      </p>
      {broken && broken.count > 0 && (
        <p className="notice error" data-testid="broken-measurements" title={broken.rule}>
          {broken.count} broken measurement(s): a network time below zero ({broken.requestIds.join(', ')}).
          Left out of the means.
        </p>
      )}
      <table className="data-table compact phase-table">
        <thead>
          <tr>
            <th scope="col">phase</th>
            <th scope="col">mean</th>
            <th scope="col">share</th>
            <th scope="col">parts inside</th>
          </tr>
        </thead>
        <tbody>
          {phaseRowsOf(phases).map((row) => (
            <tr key={row.key} data-testid={`phase-${row.key}`} data-ms={row.meanMs ?? ''}>
              <th scope="row">{row.label}</th>
              <td>{row.meanMs === null ? 'not seen' : formatMs(row.meanMs)}</td>
              <td>{formatShare(row.share)}</td>
              <td className="nested">{row.parts.map((p) => `${p.label} ${formatMs(p.ms)}`).join(', ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {words && <p data-testid="boundary-dominant">{words}</p>}
    </div>
  );
}

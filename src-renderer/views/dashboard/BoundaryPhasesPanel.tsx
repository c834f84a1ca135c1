import { SEED_PHASES } from '../../../src-main/telemetry/report';
import type { LatencyReport } from '../../../src-main/telemetry/report';
import { formatCount, formatMs, formatShare } from '../../components';

/**
 * Seed 003's view of a report: the totals at the client boundary when the requests carry
 * client stamps, and the seven phases (network in … stream) with the server's finer parts
 * inside each, at the boundary they were measured at. Broken measurements are counted.
 */
export function BoundaryPhasesPanel(props: { report: LatencyReport }) {
  const r = props.report;
  const c = r.client;
  const phases = (r.boundary === 'client' ? c?.phases : null) ?? r.serverPhases;
  const t = phases.dominantTtft;
  return (
    <div data-testid="boundary-phases" data-boundary={phases.boundary}>
      <p className="muted">
        Goodput and the p95 split use the {r.boundary} boundary. Phases below are at the {phases.boundary}{' '}
        boundary
        {phases.boundary === 'server' && c ? ' (no request has its network legs apart and a client E2E)' : ''}
        ; means over {formatCount(phases.numRequests)} requests.
      </p>
      {c && (
        <table className="data-table compact" data-testid="client-totals">
          <thead>
            <tr>
              <th scope="col">client</th>
              <th scope="col">n</th>
              <th scope="col">p50</th>
              <th scope="col">p95</th>
            </tr>
          </thead>
          <tbody>
            {(
              [
                ['TTFT', c.ttft],
                ['ITL (per request)', c.itl],
                ['E2E (completed)', c.e2e],
                ['network (both legs)', c.transport],
              ] as const
            ).map(([label, d]) => (
              <tr key={label}>
                <th scope="row">{label}</th>
                <td>{formatCount(d.count)}</td>
                <td>{formatMs(d.p50Ms)}</td>
                <td>{formatMs(d.p95Ms)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {c && c.broken.count > 0 && (
        <p className="notice error" data-testid="broken-measurements" title={c.broken.rule}>
          {c.broken.count} broken measurement(s): a network duration below zero (
          {c.broken.requestIds.join(', ')}). Left out of the phase means.
        </p>
      )}
      <table className="data-table compact phase-table">
        <thead>
          <tr>
            <th scope="col">phase</th>
            <th scope="col">mean</th>
            <th scope="col">share</th>
            <th scope="col">server parts inside</th>
          </tr>
        </thead>
        <tbody>
          {SEED_PHASES.map((phase) => (
            <tr key={phase} data-testid={`phase-${phase}`} data-ms={phases.meansMs[phase] ?? ''}>
              <th scope="row">{phase}</th>
              <td>{phases.meansMs[phase] === null ? 'not seen' : formatMs(phases.meansMs[phase])}</td>
              <td>{formatShare(phases.shares[phase])}</td>
              <td className="nested">
                {Object.entries(phases.nestedMeansMs[phase])
                  .filter(([, ms]) => ms > 0)
                  .map(([part, ms]) => `${part} ${formatMs(ms)}`)
                  .join(', ')}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {t && (
        <p data-testid="boundary-dominant">
          <b>{t.phase}</b> dominates TTFT ({formatMs(t.meanMs)}, {formatShare(t.share)}): {t.nextTest}.
          {t.part && ` Inside it, ${t.part}: ${t.partNextTest}.`}
        </p>
      )}
    </div>
  );
}

import type { ClassCell } from '../../../src-main/telemetry/report/conditioning';
import type { LatencyReport } from '../../../src-main/telemetry/report/types';
import { Figures } from '../../components/Figures';
import { formatCount, formatMs, formatShare } from '../../components/format';

const DIMENSIONS = [
  ['promptBand', 'prompt band'],
  ['cache', 'cache'],
  ['model', 'model'],
  ['finishReason', 'finish'],
] as const;

/**
 * Little's law on the window (L against λW: a check that the boundaries and the counts tell
 * one story) and the report conditioned on request classes; a cell under the minimum count
 * says so instead of showing a p95 that is only its maximum.
 */
export function LittleAndClassesPanel(props: { report: LatencyReport }) {
  const little = props.report.littlesLaw;
  const c = props.report.conditioning;
  return (
    <div data-testid="little-and-classes">
      {little ? (
        <Figures
          figures={[
            { label: 'L (mean in system)', value: little.meanInSystem.toFixed(2), testId: 'little-l' },
            {
              label: 'λW',
              value: `${little.predictedInSystem.toFixed(2)} (${little.completionsPerS.toFixed(2)}/s × ${formatMs(little.meanTimeInSystemMs)})`,
              testId: 'little-lambda-w',
            },
            {
              label: 'verdict',
              value: little.isConsistent
                ? `consistent (gap ${formatShare(little.relativeGap)})`
                : `INCONSISTENT (gap ${formatShare(little.relativeGap)} > ${formatShare(little.tolerance)}): boundaries, dropped requests or an unsteady window`,
              testId: 'little-verdict',
              dataValue: little.isConsistent ? 'consistent' : 'inconsistent',
            },
            {
              label: 'window',
              value: `${(little.windowMs / 1000).toFixed(1)} s${little.isFullSpan ? ' (full span)' : ''}`,
            },
          ]}
        />
      ) : (
        <p className="muted">Little's law needs a window with finished requests.</p>
      )}
      <table className="data-table compact" data-testid="class-cells">
        <thead>
          <tr>
            <th scope="col">class</th>
            <th scope="col">n</th>
            <th scope="col">TTFT p50</th>
            <th scope="col">TTFT p95</th>
            <th scope="col">E2E p95</th>
            <th scope="col">dominant</th>
          </tr>
        </thead>
        <tbody>
          {DIMENSIONS.flatMap(([key, name]) =>
            c[key].map((cell) => <CellRow key={`${key}-${cell.label}`} name={name} cell={cell} />),
          )}
        </tbody>
      </table>
      <p className="muted">Cells under {c.minCount} requests are too small to read.</p>
    </div>
  );
}

function CellRow(props: { name: string; cell: ClassCell }) {
  const { cell } = props;
  return (
    <tr data-testid="class-cell" data-too-small={cell.isTooSmall}>
      <th scope="row">
        {props.name}: {cell.label}
      </th>
      <td>{formatCount(cell.numRequests)}</td>
      {cell.isTooSmall ? (
        <td colSpan={4} className="muted">
          too small
        </td>
      ) : (
        <>
          <td>{formatMs(cell.ttftP50Ms)}</td>
          <td>{formatMs(cell.ttftP95Ms)}</td>
          <td>{formatMs(cell.e2eP95Ms)}</td>
          <td>{cell.dominantPhase ?? '–'}</td>
        </>
      )}
    </tr>
  );
}

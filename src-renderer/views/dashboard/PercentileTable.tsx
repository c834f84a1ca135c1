import type { ReactNode } from 'react';
import type { Distribution, LatencyReport } from '../../../src-main/telemetry/report';
import { Term, formatCount, formatMs } from '../../components';
import type { TermName } from '../../components';

const ROWS: { key: 'ttft' | 'clientTtft' | 'itl' | 'e2e'; label: ReactNode }[] = [
  {
    key: 'ttft',
    label: (
      <>
        <Term name="TTFT" /> (server)
      </>
    ),
  },
  {
    key: 'clientTtft',
    label: (
      <>
        <Term name="TTFT" /> (in the window)
      </>
    ),
  },
  {
    key: 'itl',
    label: (
      <>
        <Term name="ITL" /> (pooled)
      </>
    ),
  },
  { key: 'e2e', label: <Term name="E2E" /> },
];
const TERM_COLUMNS: ReadonlySet<string> = new Set(['p50', 'p95', 'p99']);
const COLUMNS: { key: keyof Distribution; label: string }[] = [
  { key: 'p50Ms', label: 'p50' },
  { key: 'p90Ms', label: 'p90' },
  { key: 'p95Ms', label: 'p95' },
  { key: 'p99Ms', label: 'p99' },
  { key: 'maxMs', label: 'max' },
  { key: 'meanMs', label: 'mean' },
];

/** Nearest-rank percentiles of the totals, each row titled with where its clock starts and stops. */
export function PercentileTable(props: { report: LatencyReport }) {
  const r = props.report;
  return (
    <table className="data-table" data-testid="percentile-table">
      <thead>
        <tr>
          <th scope="col">total</th>
          <th scope="col">n</th>
          {COLUMNS.map((c) => (
            <th key={c.key} scope="col">
              {TERM_COLUMNS.has(c.label) ? <Term name={c.label as TermName} /> : c.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {ROWS.map((row) => (
          <tr key={row.key} data-testid={`percentile-row-${row.key}`} title={r.boundaries[row.key]}>
            <th scope="row">{row.label}</th>
            <td>{formatCount(r[row.key].count)}</td>
            {COLUMNS.map((c) => (
              <td key={c.key} data-testid={`${row.key}-${c.label}`} data-ms={r[row.key][c.key] ?? ''}>
                {formatMs(r[row.key][c.key])}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

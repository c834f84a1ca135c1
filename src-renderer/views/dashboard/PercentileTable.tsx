import type { ReactNode } from 'react';
import type { Distribution } from '../../../src-main/telemetry/report/distribution';
import type { LatencyReport } from '../../../src-main/telemetry/report/types';
import { formatCount, formatMs } from '../../components/format';
import { Term } from '../../components/Term';

type RowKey = 'ttft' | 'clientTtft' | 'itl' | 'e2e';
interface Column {
  key: keyof Distribution;
  /** Names the cell's test id (`ttft-p50`), whatever the heading says. */
  id: string;
  label: ReactNode;
}

/** Simple: the same figures in words, three columns a newcomer reads without a glossary. */
const SIMPLE_ROWS: { key: RowKey; label: string }[] = [
  { key: 'ttft', label: 'to the first word, at the app' },
  { key: 'clientTtft', label: 'to the first word, in the window' },
  { key: 'itl', label: 'between two words' },
  { key: 'e2e', label: 'the whole answer' },
];
/** Expert: Simple's words with the term of art after them (one vocabulary, Expert adds detail). */
const EXPERT_TERMS: Record<RowKey, ReactNode> = {
  ttft: (
    <>
      <Term name="TTFT" />, server
    </>
  ),
  clientTtft: (
    <>
      <Term name="TTFT" />, client
    </>
  ),
  itl: (
    <>
      <Term name="ITL" />, pooled
    </>
  ),
  e2e: <Term name="E2E" />,
};
const EXPERT_ROWS: { key: RowKey; label: ReactNode }[] = SIMPLE_ROWS.map((row) => ({
  key: row.key,
  label: (
    <>
      {row.label} ({EXPERT_TERMS[row.key]})
    </>
  ),
}));
const EXPERT_COLUMNS: Column[] = [
  { key: 'p50Ms', id: 'p50', label: <Term name="p50">typical (p50)</Term> },
  { key: 'p90Ms', id: 'p90', label: 'p90' },
  { key: 'p95Ms', id: 'p95', label: <Term name="p95">95 in 100 within (p95)</Term> },
  { key: 'p99Ms', id: 'p99', label: <Term name="p99" /> },
  { key: 'maxMs', id: 'max', label: 'slowest (max)' },
  { key: 'meanMs', id: 'mean', label: 'mean' },
];
const SIMPLE_COLUMNS: Column[] = [
  { key: 'p50Ms', id: 'p50', label: <Term name="p50">typical</Term> },
  { key: 'p95Ms', id: 'p95', label: <Term name="p95">95 in 100 within</Term> },
  { key: 'maxMs', id: 'max', label: 'slowest' },
];

/**
 * Nearest-rank percentiles of the totals, each row titled with where its clock starts and
 * stops; Simple names the rows and columns in words and keeps the median, p95 and max.
 */
export function PercentileTable(props: { report: LatencyReport; isSimple?: boolean }) {
  const r = props.report;
  const rows = props.isSimple ? SIMPLE_ROWS : EXPERT_ROWS;
  const columns = props.isSimple ? SIMPLE_COLUMNS : EXPERT_COLUMNS;
  return (
    <table className="data-table" data-testid="percentile-table">
      <thead>
        <tr>
          <th scope="col">how long</th>
          <th scope="col">{props.isSimple ? 'how many' : 'how many (n)'}</th>
          {columns.map((c) => (
            <th key={c.key} scope="col">
              {c.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.key} data-testid={`percentile-row-${row.key}`} title={r.boundaries[row.key]}>
            <th scope="row">{row.label}</th>
            <td>{formatCount(r[row.key].count)}</td>
            {columns.map((c) => (
              <td key={c.key} data-testid={`${row.key}-${c.id}`} data-ms={r[row.key][c.key] ?? ''}>
                {formatMs(r[row.key][c.key])}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

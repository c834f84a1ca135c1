import type { RunComparison } from '../../../src-main/service/contract';
import { formatCount, formatMs, formatShare } from '../../components';

type Metrics = RunComparison['a'];

const ROWS: { label: string; value(m: Metrics): string }[] = [
  { label: 'Requests', value: (m) => formatCount(m.numRequests) },
  {
    label: 'Output throughput',
    value: (m) => (m.outputTokensPerS === null ? '–' : `${m.outputTokensPerS.toFixed(1)} tokens/s`),
  },
  {
    label: 'Request rate',
    value: (m) => (m.requestsPerS === null ? '–' : `${m.requestsPerS.toFixed(2)} req/s`),
  },
  { label: 'p95 server TTFT', value: (m) => formatMs(m.p95TtftMs) },
  {
    label: 'Requests whose first token missed the TTFT SLO',
    value: (m) => formatShare(m.missedTtftSloShare),
  },
  { label: 'Requests failed or rejected', value: (m) => formatShare(m.failedOrRejectedShare) },
];

/** Seed 002's Config A vs Config B table: the same measures side by side, no winner declared. */
export function CompareTable(props: { comparison: RunComparison }) {
  const { a, b } = props.comparison;
  return (
    <table className="data-table" data-testid="compare-table">
      <thead>
        <tr>
          <th scope="col">Measure</th>
          <th scope="col">A: {a.name}</th>
          <th scope="col">B: {b.name}</th>
        </tr>
      </thead>
      <tbody>
        {ROWS.map((row) => (
          <tr key={row.label}>
            <th scope="row">{row.label}</th>
            <td>{row.value(a)}</td>
            <td>{row.value(b)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

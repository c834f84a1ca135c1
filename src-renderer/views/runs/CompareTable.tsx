import type { RunComparison } from '../../../src-main/service/contract';
import { formatCount, formatMs, formatShare } from '../../components';

type Metrics = RunComparison['a'];
type Quality = NonNullable<RunComparison['quality']>['a'];

/** Quality rows, shown when the two runs ran different variants of one model. */
const QUALITY_ROWS: { label: string; value(q: NonNullable<Quality>): string }[] = [
  { label: 'Variant (weights)', value: (q) => `${q.variant} (${q.weightDtype})` },
  {
    label: 'Bits per byte, held-out text',
    value: (q) =>
      `${q.bitsPerByte.toFixed(4)} (${q.bitsPerByteVsReferencePct >= 0 ? '+' : ''}${q.bitsPerByteVsReferencePct.toFixed(1)}% vs ${q.referenceVariant})`,
  },
  { label: `Greedy agreement with the reference`, value: (q) => formatShare(q.agreement) },
];

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
  const { a, b, quality } = props.comparison;
  const qualityCell = (q: Quality, row: (typeof QUALITY_ROWS)[number]) =>
    q ? row.value(q) : 'not measured (npm run bench -- quality)';
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
        {quality &&
          QUALITY_ROWS.map((row) => (
            <tr key={row.label} data-testid="compare-quality">
              <th scope="row">{row.label}</th>
              <td>{qualityCell(quality.a, row)}</td>
              <td>{qualityCell(quality.b, row)}</td>
            </tr>
          ))}
      </tbody>
    </table>
  );
}

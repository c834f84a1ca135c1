import type { RunComparison } from '../../../src-main/service/contract';
import { formatCount, formatMs, formatShare } from '../../components';

type Block = RunComparison['workloads'][number];
type Row = Block['rows'][number];

const COLUMNS: { label: string; value(r: Row): string }[] = [
  { label: 'requests', value: (r) => formatCount(r.numRequests) },
  {
    label: 'throughput',
    value: (r) =>
      r.outputTokensPerS === null
        ? '–'
        : `${r.outputTokensPerS.toFixed(1)} tok/s · ${r.requestsPerS?.toFixed(2) ?? '–'} req/s`,
  },
  { label: 'TTFT p50', value: (r) => formatMs(r.p50TtftMs) },
  { label: 'TTFT p95', value: (r) => formatMs(r.p95TtftMs) },
  { label: 'ITL p95', value: (r) => formatMs(r.p95ItlMs) },
  {
    label: 'goodput',
    value: (r) =>
      r.goodShare === null ? '–' : `${formatShare(r.goodShare)} · ${r.goodPerS?.toFixed(2) ?? '–'}/s`,
  },
  { label: 'missed TTFT SLO', value: (r) => formatShare(r.missedTtftSloShare) },
  { label: 'failed or rejected', value: (r) => formatShare(r.failedOrRejectedShare) },
];

/** A variant's measured quality: bits per byte on held-out text against its reference, and greedy agreement. */
function qualityText(q: NonNullable<Row['quality']>): string {
  const vs = `${q.bitsPerByteVsReferencePct >= 0 ? '+' : ''}${q.bitsPerByteVsReferencePct.toFixed(1)}% vs ${q.referenceVariant}`;
  return `${q.variant} (${q.weightDtype}): ${q.bitsPerByte.toFixed(4)} bits/byte (${vs}), agreement ${formatShare(q.agreement)}`;
}

/**
 * Seed 002's table, one block per workload: each configuration's throughput, TTFT p50/p95 and
 * ITL at its boundary (named per row), goodput, failed or rejected share, quality when the
 * models differ, and the decision sentences. No winner is declared.
 */
export function CompareTable(props: { comparison: RunComparison }) {
  const { workloads, isModelVaried } = props.comparison;
  return (
    <div data-testid="compare-table">
      {workloads.map((block) => (
        <section key={block.label} className="workload-block" data-testid="workload-block">
          <h3>Workload: {block.label}</h3>
          <table className="data-table">
            <thead>
              <tr>
                <th scope="col">configuration</th>
                <th scope="col">boundary</th>
                {COLUMNS.map((c) => (
                  <th key={c.label} scope="col">
                    {c.label}
                  </th>
                ))}
                {isModelVaried && <th scope="col">quality</th>}
              </tr>
            </thead>
            <tbody>
              {block.rows.map((row) => (
                <tr key={row.runId} data-testid="compare-row">
                  <th scope="row" title={row.name}>
                    {row.configLabel}: {row.name}
                  </th>
                  <td>{row.boundary}</td>
                  {COLUMNS.map((c) => (
                    <td key={c.label}>{c.value(row)}</td>
                  ))}
                  {isModelVaried && (
                    <td>
                      {row.quality ? qualityText(row.quality) : 'not measured (npm run bench -- quality)'}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
          {block.decisions.map((sentence) => (
            <p key={sentence} className="decision" data-testid="decision">
              {sentence}
            </p>
          ))}
        </section>
      ))}
    </div>
  );
}

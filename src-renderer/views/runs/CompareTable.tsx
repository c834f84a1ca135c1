import type { RunComparison } from '../../../src-main/service/contract/report-schemas';
import { formatShare } from '../../components/format';
import { useSlice } from '../../store/react';
import {
  BOUNDARY_HEADING,
  boundaryText,
  COMPARE_COLUMNS,
  differenceText,
  headingOf,
  plainComparison,
} from './compare-columns';
import type { CompareRow } from './compare-columns';

/** A variant's measured quality: bits per byte on held-out text against its reference, and greedy agreement. */
function qualityText(q: NonNullable<CompareRow['quality']>): string {
  const vs = `${q.bitsPerByteVsReferencePct >= 0 ? '+' : ''}${q.bitsPerByteVsReferencePct.toFixed(1)}% vs ${q.referenceVariant}`;
  return `${q.variant} (${q.weightDtype}): ${q.bitsPerByte.toFixed(4)} bits/byte (${vs}), agreement ${formatShare(q.agreement)}`;
}

/**
 * A run whose answers' quality was not measured: both modes say so plainly (one short line, the
 * table fits 1024 px); Expert's hover names the command that measures it.
 */
function NotMeasured(props: { isExpert: boolean }) {
  return props.isExpert ? (
    <span title="npm run bench -- quality measures it">not measured</span>
  ) : (
    <>not measured</>
  );
}

/**
 * Seed 002's table, one block per workload: each run (its own letter) with its throughput,
 * TTFT p50/p95 and ITL at its boundary (named per row), goodput, failed or rejected share,
 * quality when the models differ; then each later run against the first (B − A, the ratio, and
 * whether that is better or worse), and the decision sentences. No winner is declared. Simple
 * names the figures in the Dashboard's words and says the trade in them, not in the decision
 * sentences' terms. Expert's headings lead with the same words and add the term after them.
 */
export function CompareTable(props: { comparison: RunComparison }) {
  const { workloads, isModelVaried } = props.comparison;
  const isExpert = useSlice('ui', (s) => s.preferences.viewMode === 'expert');
  return (
    <div data-testid="compare-table">
      {workloads.map((block) => {
        const [first, ...later] = block.rows;
        return (
          <section key={block.label} className="workload-block" data-testid="workload-block">
            <h3>Workload: {block.label}</h3>
            <table className="data-table">
              <thead>
                <tr>
                  <th scope="col">run</th>
                  <th scope="col">{headingOf(BOUNDARY_HEADING, isExpert)}</th>
                  {COMPARE_COLUMNS.map((c) => (
                    <th key={c.id} scope="col">
                      {headingOf(c, isExpert)}
                    </th>
                  ))}
                  {isModelVaried && <th scope="col">quality</th>}
                </tr>
              </thead>
              <tbody>
                {block.rows.map((row) => (
                  <tr key={row.runId} data-testid="compare-row">
                    <th scope="row" title={row.name}>
                      {row.runLabel}: {row.name}
                    </th>
                    <td>{boundaryText(row.boundary, isExpert)}</td>
                    {COMPARE_COLUMNS.map((c) => (
                      <td key={c.id}>{c.text(row)}</td>
                    ))}
                    {isModelVaried && (
                      <td>{row.quality ? qualityText(row.quality) : <NotMeasured isExpert={isExpert} />}</td>
                    )}
                  </tr>
                ))}
                {first &&
                  later.map((row) => (
                    <tr key={`diff-${row.runId}`} className="difference-row" data-testid="compare-difference">
                      <th scope="row">
                        {row.runLabel} − {first.runLabel}
                      </th>
                      <td />
                      {COMPARE_COLUMNS.map((c) => (
                        <td key={c.id}>{differenceText(c, first, row)}</td>
                      ))}
                      {isModelVaried && <td />}
                    </tr>
                  ))}
              </tbody>
            </table>
            {isExpert
              ? block.decisions.map((sentence) => (
                  <p key={sentence} className="decision" data-testid="decision">
                    {sentence}
                  </p>
                ))
              : first &&
                later.map((row) => (
                  <p key={row.runId} className="decision" data-testid="decision">
                    {plainComparison(first, row)}
                  </p>
                ))}
          </section>
        );
      })}
    </div>
  );
}

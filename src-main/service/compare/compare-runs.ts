import type { RunMetrics, RunRecord } from '../../history/queries/runs';
import type { History } from '../../history/history';
import type { Slo } from '../../telemetry/report/goodput';
import { DEFAULT_TTFT_EDGES_MS } from '../../telemetry/report/histogram';
import type { QualityResult } from '../contract/quality-schemas';
import type { RunComparison } from '../contract/report-schemas';
import { ServiceFailure } from '../contract/result';
import { configurationsOf, differingKeys, isModelVaried, runLetterOf } from './configurations';
import type { Configuration } from './configurations';
import { decisionSentence } from './decision';

/** "1 run", "5 runs": a count with its noun in the right number. */
const counted = (noun: string) => (v: string) => `${v} ${v === '1' ? noun : `${noun}s`}`;

/** How a recorded workload field reads in a sentence ("6 requests", "20 per second"). */
const WORKLOAD_WORDS: Record<string, (value: string) => string> = {
  kind: (v) => (v === 'first-frame' ? 'first-frame benchmark' : v === 'load' ? 'load test' : v),
  numRuns: counted('run'),
  numRequests: counted('request'),
  ratePerS: (v) => `${v} per second`,
  burstSize: (v) => `bursts of ${v}`,
};

/** A workload as a run recorded it, in words, and the key runs are grouped by. */
function workloadOf(run: RunRecord): { key: string; label: string } {
  const w = run.config.workload;
  if (w === undefined) return { key: 'unspecified', label: 'an unrecorded workload' };
  if (typeof w === 'string') return { key: w, label: w };
  const label = Object.entries(w)
    .filter(([, v]) => v !== null && v !== undefined && typeof v !== 'object')
    .map(([k, v]) => WORKLOAD_WORDS[k]?.(String(v)) ?? `${k} ${String(v)}`)
    .join(', ');
  return { key: JSON.stringify(w), label: label || 'a recorded workload' };
}

/**
 * Seed 002's comparison of configurations: the runs grouped into configurations (settings and
 * model revisions; the settings that differ named), one block per workload with each
 * configuration's throughput, TTFT p50/p95 at its boundary, p95 ITL, goodput and failed or
 * rejected share, and a decision sentence per configuration against the first one. `shown`
 * turns a stored run into what the screens name (listed-model-ids.ts).
 */
export function compareRuns(
  history: History,
  runIds: readonly string[],
  slo: Slo,
  qualityResults: readonly QualityResult[] = [],
  shown: (run: RunRecord) => RunRecord = (run) => run,
): RunComparison {
  const runs = runIds.map((runId) => {
    const run = history.runs.get(runId);
    if (!run)
      throw new ServiceFailure(
        'not_found',
        `no run "${runId}"${history.isPersistent ? '' : ' (history is off)'}`,
      );
    return shown(run);
  });
  const metrics = new Map(
    runs.map((r) => [r.runId, history.runs.metrics(r.runId, slo, DEFAULT_TTFT_EDGES_MS)!]),
  );
  const { configurations, configOf } = configurationsOf(runs, qualityResults);
  const letterOf = new Map(runs.map((r, i) => [r.runId, runLetterOf(i)]));
  const withQuality = isModelVaried(configurations);
  const blocks = new Map<string, { label: string; runs: RunRecord[] }>();
  for (const run of runs) {
    const { key, label } = workloadOf(run);
    const block = blocks.get(key) ?? { label, runs: [] };
    block.runs.push(run);
    blocks.set(key, block);
  }
  return {
    configurations,
    differingKeys: differingKeys(configurations),
    isModelVaried: withQuality,
    workloads: [...blocks.values()].map((block) =>
      workloadBlock(block, metrics, configOf, letterOf, withQuality),
    ),
    histogram: {
      edgesMs: [...DEFAULT_TTFT_EDGES_MS],
      series: runs.map((r) => ({
        runId: r.runId,
        label: `${letterOf.get(r.runId)!}: ${r.name}`,
        boundary: metrics.get(r.runId)!.boundary,
        counts: metrics.get(r.runId)!.ttftHistogram.counts,
      })),
    },
  };
}

function workloadBlock(
  block: { label: string; runs: RunRecord[] },
  metrics: Map<string, RunMetrics>,
  configOf: Map<string, Configuration>,
  letterOf: Map<string, string>,
  withQuality: boolean,
): RunComparison['workloads'][number] {
  const rows = block.runs.map((run) => {
    const m = metrics.get(run.runId)!;
    const config = configOf.get(run.runId)!;
    return {
      configLabel: config.label,
      runLabel: letterOf.get(run.runId)!,
      runId: run.runId,
      name: run.name,
      numRequests: m.numRequests,
      boundary: m.boundary,
      requestsPerS: m.requestsPerS,
      outputTokensPerS: m.outputTokensPerS,
      p50TtftMs: m.atBoundary.p50TtftMs,
      p95TtftMs: m.atBoundary.p95TtftMs,
      p95ItlMs: m.atBoundary.p95ItlMs,
      goodShare: m.atBoundary.goodShare,
      goodPerS: m.atBoundary.goodPerS,
      missedTtftSloShare: m.atBoundary.missedTtftSloShare,
      failedOrRejectedShare: m.failedOrRejectedShare,
      serverP95TtftMs: m.p95TtftMs,
      quality: config.quality,
    };
  });
  const decisionRow = (row: (typeof rows)[number]) => ({ ...row, label: row.runLabel });
  const [base, ...others] = rows;
  const decisions = base
    ? others
        .filter((row) => row.configLabel !== base.configLabel)
        .map((row) => decisionSentence(block.label, decisionRow(base), decisionRow(row), withQuality))
    : [];
  return { label: block.label, rows, decisions };
}

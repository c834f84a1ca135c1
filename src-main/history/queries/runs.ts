import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { z } from 'zod';
import type { Slo } from '../../telemetry/report/goodput';
import type { Boundary } from '../../telemetry/report/seed-phases';
import type { LatencyReport } from '../../telemetry/report/types';
import { buildReportFromColumns } from '../../telemetry/report/build-report';
import { DEFAULT_TTFT_EDGES_MS, histogram } from '../../telemetry/report/histogram';
import { loadReportColumns } from './report-load';
import { StoredSettingsSchema } from '../../runtime/settings/schema';

/** Which experiment a run is an arm of: the varied setting and this arm's value. */
export const RunExperimentSchema = z.looseObject({
  experimentId: z.string(),
  vary: z.string(),
  value: z.string(),
  armIndex: z.number().int(),
  numArms: z.number().int(),
});

/** The remote engine a run was measured against; its settings are the server's own, unknown here. */
export const RunEndpointSchema = z.object({
  baseUrl: z.string(),
  engine: z.string(),
  serverModelId: z.string(),
});

/**
 * What a run was measured with: the runtime settings (seats, K/V budget, page size, limits,
 * model, provider…), model revisions and the workload, and the experiment it belongs to.
 * Known fields are typed; anything else is kept as given. Older runs carry `numSeats` and
 * `pageSize` instead of `settings`.
 */
export const RunConfigSchema = z.looseObject({
  settings: StoredSettingsSchema.optional(),
  experiment: RunExperimentSchema.optional(),
  modelRevisions: z.record(z.string(), z.string()).optional(),
  /** A run against a remote engine (the load lab's `--url`): where, which engine, its model's name there. */
  endpoint: RunEndpointSchema.optional(),
  precision: z.string().optional(),
  provider: z.string().optional(),
  numSeats: z.number().int().optional(),
  pageSize: z.number().int().optional(),
  budgets: z.record(z.string(), z.number()).optional(),
  workload: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
});
export type RunConfig = z.infer<typeof RunConfigSchema>;

/** A stored run; `startedWallMs` is wall-clock epoch ms. */
export interface RunRecord {
  runId: string;
  name: string;
  startedWallMs: number;
  config: RunConfig;
  numRequests: number;
}

/**
 * One run in the Runs comparison (seed 002's configuration A vs B): throughput, p95 server
 * TTFT, share of first tokens that missed the TTFT SLO, failed or rejected share, the TTFT
 * histogram, and the latency and goodput at the run's boundary (the client's when its requests
 * carry client stamps, else the server's).
 */
export interface RunMetrics {
  runId: string;
  name: string;
  numRequests: number;
  outputTokensPerS: number | null;
  requestsPerS: number | null;
  p95TtftMs: number | null;
  missedTtftSloShare: number | null;
  failedOrRejectedShare: number | null;
  ttftHistogram: { edgesMs: number[]; counts: number[] };
  boundary: Boundary;
  atBoundary: {
    p50TtftMs: number | null;
    p95TtftMs: number | null;
    p95ItlMs: number | null;
    goodShare: number | null;
    goodPerS: number | null;
    missedTtftSloShare: number | null;
  };
}

/** Runs: created synchronously (timelines reference them), listed, summarised, deleted. */
export interface RunQueries {
  create(input: { name: string; config?: RunConfig; runId?: string; startedWallMs?: number }): RunRecord;
  list(): RunRecord[];
  get(runId: string): RunRecord | null;
  /** Gives the run a new name; false when there is no such run. */
  rename(runId: string, name: string): boolean;
  /** Deletes the run and, by cascade, its timelines. */
  remove(runId: string): boolean;
  metrics(runId: string, slo: Slo, edgesMs?: readonly number[]): RunMetrics | null;
}

interface RunRow {
  id: string;
  name: string;
  started_at_wall_ms: number;
  config_json: string;
  num_requests: number;
}

const SELECT_RUNS = `SELECT r.id, r.name, r.started_at_wall_ms, r.config_json,
  (SELECT count(*) FROM requests q WHERE q.run_id = r.id) AS num_requests FROM runs r`;

/** RunQueries over an open history database. */
export function runQueries(db: Database.Database): RunQueries {
  const insert = db.prepare(
    'INSERT INTO runs (id, name, started_at_wall_ms, config_json) VALUES (?, ?, ?, ?)',
  );
  const list = db.prepare(`${SELECT_RUNS} ORDER BY r.started_at_wall_ms DESC, r.rowid DESC`);
  const get = db.prepare(`${SELECT_RUNS} WHERE r.id = ?`);
  const remove = db.prepare('DELETE FROM runs WHERE id = ?');
  const rename = db.prepare('UPDATE runs SET name = ? WHERE id = ?');
  const queries: RunQueries = {
    create: ({ name, config = {}, runId = randomUUID(), startedWallMs = Date.now() }) => {
      const parsed = RunConfigSchema.parse(config);
      insert.run(runId, name, startedWallMs, JSON.stringify(parsed));
      return { runId, name, startedWallMs, config: parsed, numRequests: 0 };
    },
    list: () => (list.all() as RunRow[]).map(toRunRecord),
    get: (runId) => {
      const row = get.get(runId) as RunRow | undefined;
      return row ? toRunRecord(row) : null;
    },
    rename: (runId, name) => rename.run(name, runId).changes > 0,
    remove: (runId) => remove.run(runId).changes > 0,
    metrics: (runId, slo, edgesMs = DEFAULT_TTFT_EDGES_MS) => {
      const run = queries.get(runId);
      return run ? runMetrics(db, run, slo, edgesMs) : null;
    },
  };
  return queries;
}

function toRunRecord(row: RunRow): RunRecord {
  return {
    runId: row.id,
    name: row.name,
    startedWallMs: row.started_at_wall_ms,
    config: RunConfigSchema.parse(JSON.parse(row.config_json)),
    numRequests: row.num_requests,
  };
}

function runMetrics(db: Database.Database, run: RunRecord, slo: Slo, edgesMs: readonly number[]): RunMetrics {
  const columns = loadReportColumns(db, { runId: run.runId });
  const report = buildReportFromColumns(columns, { slo });
  return {
    runId: run.runId,
    name: run.name,
    numRequests: report.numRequests,
    outputTokensPerS: report.throughput?.outputTokensPerS ?? null,
    requestsPerS: report.throughput?.requestsPerS ?? null,
    p95TtftMs: report.ttft.p95Ms,
    missedTtftSloShare: report.goodput?.missedTtftShare ?? null,
    failedOrRejectedShare: report.throughput?.failedOrRejectedShare ?? null,
    ttftHistogram: {
      edgesMs: [...edgesMs],
      counts: histogram(
        report.boundary === 'client' ? columns.values.clientTtftMs : columns.values.ttftMs,
        columns.numRequests,
        edgesMs,
      ),
    },
    boundary: report.boundary,
    atBoundary: atBoundaryOf(report),
  };
}

/** TTFT, ITL and goodput at the report's boundary (the client's totals when it has them). */
function atBoundaryOf(report: LatencyReport): RunMetrics['atBoundary'] {
  const client = report.boundary === 'client' ? report.client : null;
  const itl = client && client.itl.count > 0 ? client.itl : report.itl;
  return {
    p50TtftMs: (client?.ttft ?? report.ttft).p50Ms,
    p95TtftMs: (client?.ttft ?? report.ttft).p95Ms,
    p95ItlMs: itl.p95Ms,
    goodShare: report.goodput?.goodShare ?? null,
    goodPerS: report.goodput?.goodPerS ?? null,
    missedTtftSloShare: report.goodput?.missedTtftShare ?? null,
  };
}

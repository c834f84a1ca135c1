/**
 * `npm run bench -- store [--json] [--requests N] [--rounds R]`: the history store's speed
 * targets on the synthetic chat workload — batched-writer inserts/s (printed, no verdict: it
 * moves with the machine) beside a bare better-sqlite3 insert of the same rows in the same run
 * (`store_insert_over_bare` ≥ 0.7); a full report over N stored timelines (printed, no verdict)
 * beside a bare scan of the columns it reads (`report_over_bare_scan` ≤ 2.0); a streamed CSV
 * export of N rows (flat memory, peak RSS reported). Each result states its workload, boundary
 * and statistic.
 */
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { syntheticTimelines } from '../../src-main/telemetry/synthetic/workload';
import { writeCsv } from '../../src-main/telemetry/trace/csv-export';
import { flattenBatches } from '../../src-main/telemetry/trace/stream-out';
import { openSqliteHistory } from '../../src-main/history/history';
import { benchInsert } from './insert';
import { benchReport, reportChild, runChild } from './report';
import { round1, type BenchResult, WORKLOAD } from './result';
import { print } from '../../src-main/printable';

/** Entry point for `npm run bench -- store`. */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      json: { type: 'boolean', default: false },
      requests: { type: 'string', default: '100000' },
      rounds: { type: 'string', default: '3' },
      child: { type: 'string' },
      db: { type: 'string' },
      repeats: { type: 'string', default: '9' },
    },
  });
  if (values.child === 'csv') return csvChild(values.db!);
  if (values.child === 'report') return reportChild(values.db!, Number(values.repeats));
  const numRequests = Number(values.requests);
  const numRounds = Math.max(1, Number(values.rounds));
  const dir = mkdtempSync(join(tmpdir(), 'ff-bench-store-'));
  try {
    const insert = await benchInsert(
      dir,
      syntheticTimelines(numRequests, { seed: 1, models: ['tiny-a', 'tiny-b'] }),
      numRounds,
    );
    const dbPath = join(dir, 'round-0.db');
    const results = [...insert, ...benchReport(dbPath, numRequests), benchCsv(dbPath, numRequests)];
    printResults(results, values.json);
    return results.every((r) => r.isMet !== false) ? 0 : 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the export in a fresh child so its peak RSS is the export's, not the generator's. */
function benchCsv(dbPath: string, numRequests: number): BenchResult {
  const detail = runChild(['--child', 'csv', '--db', dbPath]);
  const heapGrowthMb = detail.heapAtEndMb! - detail.heapAt10PctMb!;
  return {
    name: 'streamed CSV export',
    workload: WORKLOAD(numRequests),
    boundary: 'fresh process: store pages of 1,000 rows → csv-stringify → file, with backpressure',
    statistic:
      'one run; live heap (after a forced GC) and RSS sampled at 10%, 50%, 100% of rows; process peak RSS (maxRSS)',
    value: detail.peakRssMb!,
    unit: 'MB peak RSS',
    target: 'flat memory: live heap after GC grows < 10 MB from 10% to 100% of rows',
    isMet: heapGrowthMb < 10,
    detail: { ...detail, heapGrowthMb: round1(heapGrowthMb) },
  };
}

async function csvChild(dbPath: string): Promise<number> {
  const history = openSqliteHistory(dbPath);
  const total = history.timelines.count({});
  const samples: Record<string, number> = {};
  // Live heap after a full GC is what a leak would grow; RSS alone also counts garbage not yet collected.
  const sample = (label: string) => {
    (globalThis as { gc?: () => void }).gc?.();
    samples[`heap${label}Mb`] = round1(process.memoryUsage().heapUsed / 1_048_576);
    samples[`rss${label}Mb`] = round1(process.memoryUsage.rss() / 1_048_576);
  };
  sample('Before');
  let seen = 0;
  function* sampled() {
    for (const t of flattenBatches(history.timelines.batches({}))) {
      seen++;
      if (seen === Math.ceil(total * 0.1)) sample('At10Pct');
      if (seen === Math.ceil(total * 0.5)) sample('At50Pct');
      yield t;
    }
  }
  const outPath = `${dbPath}.csv`;
  const startAt = performance.now();
  const numRows = await writeCsv(sampled(), createWriteStream(outPath));
  samples.exportMs = round1(performance.now() - startAt);
  sample('AtEnd');
  samples.peakRssMb = round1((process.resourceUsage().maxRSS * 1024) / 1_048_576);
  samples.numRows = numRows;
  samples.fileMb = round1(statSync(outPath).size / 1_048_576);
  history.close();
  print(JSON.stringify(samples));
  return 0;
}

function printResults(results: BenchResult[], isJson: boolean): void {
  const machine = {
    cpu: cpus()[0]?.model ?? 'unknown',
    numCpus: cpus().length,
    loadAvg1m: round1(loadavg()[0]!),
  };
  if (isJson) {
    print(JSON.stringify({ machine, results }, null, 2));
    return;
  }
  print(`machine: ${machine.cpu} × ${machine.numCpus}, load average ${machine.loadAvg1m}`);
  for (const r of results) {
    const verdict = r.isMet === null ? '' : r.isMet ? 'MET' : 'MISSED';
    print(
      `\n${r.name}: ${r.value < 10 ? r.value.toFixed(3) : round1(r.value).toLocaleString('en')} ${r.unit} (target ${r.target}) ${verdict}`,
    );
    print(`  workload:  ${r.workload}\n  boundary:  ${r.boundary}\n  statistic: ${r.statistic}`);
    print(`  detail:    ${JSON.stringify(r.detail)}`);
  }
}

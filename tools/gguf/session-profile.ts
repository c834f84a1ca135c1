// `npx tsx tools/gguf/cli.ts session-profile --gguf FILE | --graph CONVERTED/onnx/model.onnx
// [--variant FILE] [--rounds N] [--threads N] [--json]`: what a converted graph's session build is made of, and
// what each of ONNX Runtime's alternatives does to it. Each alternative (session-profile-child.ts)
// builds in a process of its own, alternated over the rounds; per alternative the medians of its
// build (split by ORT's verbose log, build-split.ts), resident memory after the build, the 87-token
// prefill and the decode step's ITL, beside the disk the optimized copy would cost.

import { spawnSync } from 'node:child_process';
import type { SpawnSyncReturns } from 'node:child_process';
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { convertGguf, CONVERTED_FILES } from '../../src-main/runtime/model/gguf/gguf-convert';
import { buildSplitOf } from './build-split';
import type { BuildSplit } from './build-split';
import { ALTERNATIVES } from './session-alternatives';
import type { AlternativeName, ProfileFigures, ProfileJob } from './session-alternatives';

const CHILD = new URL('./session-profile-child.ts', import.meta.url).pathname;

/** What one profile found, as `--json` prints it. */
interface Report extends ReturnType<typeof profileGraph> {
  cpu: string;
  numCpus: number;
  loadAtStart: number;
  loadAtEnd: number;
  convertMs: number | null;
  dataBytes: number;
  alternatives: typeof ALTERNATIVES;
}

/** One alternative's medians over the rounds (ms, MB). */
type Row = { alternative: AlternativeName; numRuns: number } & Partial<ProfileFigures & BuildSplit>;

/** One child; its stderr (ORT's verbose log) goes to a file: through a pipe most of it was lost. */
function runChild(
  job: ProfileJob,
  logFile: string,
): { figures: ProfileFigures & BuildSplit } | { error: string } {
  const log = openSync(logFile, 'w');
  let result: SpawnSyncReturns<string>;
  try {
    result = spawnSync(process.execPath, ['--import', 'tsx', CHILD, JSON.stringify(job)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', log],
      maxBuffer: 64 * 1024 * 1024,
    });
  } finally {
    closeSync(log);
  }
  const stderr = readFileSync(logFile, 'utf8');
  const last = result.stdout.trim().split('\n').pop() ?? '';
  if (result.status !== 0 || !last.startsWith('{'))
    return {
      error: `${job.alternative}: child exited ${result.status}: ${stderr.trim().split('\n').slice(-2).join(' | ')}`,
    };
  return { figures: { ...(JSON.parse(last) as ProfileFigures), ...buildSplitOf(stderr) } };
}

function median(values: number[]): number | undefined {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  return sorted.length === 0 ? undefined : sorted[sorted.length >> 1];
}

/** The K/V layout of a converted folder's config.json (Hugging Face names). */
function kvOf(graph: string): ProfileJob['kv'] {
  const config = JSON.parse(
    readFileSync(path.join(path.dirname(graph), '..', 'config.json'), 'utf8'),
  ) as Record<string, number>;
  const numHeads = config.num_attention_heads!;
  return {
    numLayers: config.num_hidden_layers!,
    numKvHeads: config.num_key_value_heads ?? numHeads,
    headDim: config.head_dim ?? config.hidden_size! / numHeads,
  };
}

function folderBytes(dir: string): number {
  return readdirSync(dir).reduce((sum, name) => sum + statSync(path.join(dir, name)).size, 0);
}

function rowOf(alternative: AlternativeName, runs: Array<ProfileFigures & BuildSplit>): Row {
  const keys = [
    'buildMs',
    'loadMs',
    'foldMs',
    'otherPassesMs',
    'initializersMs',
    'prepackMs',
    'rssMb',
    'anonMb',
    'fileMb',
    'prefillMs',
    'itlP50Ms',
  ] as const;
  const row: Row = { alternative, numRuns: runs.length };
  for (const key of keys) row[key] = median(runs.map((run) => run[key] ?? NaN));
  return row;
}

/** Every alternative over `rounds` alternated rounds on `graph`; the optimized copy is saved once first, in `scratch`. */
function profileGraph(
  graph: string,
  variant: string | null,
  rounds: number,
  numThreads: number,
  scratch: string,
) {
  const kv = kvOf(graph);
  const copyDir = path.join(scratch, 'optimized');
  const copy = path.join(copyDir, 'graph.onnx');
  mkdirSync(copyDir, { recursive: true });
  const logFile = path.join(scratch, 'ort.log');
  const saved = runChild({ graph, alternative: 'optimized-copy', numThreads, kv, saveTo: copy }, logFile);
  const names = (Object.keys(ALTERNATIVES) as AlternativeName[]).filter(
    (name) => name !== 'variant' || variant !== null,
  );
  const runs = new Map<AlternativeName, Array<ProfileFigures & BuildSplit>>(names.map((name) => [name, []]));
  const errors: string[] = 'error' in saved ? [saved.error] : [];
  for (let round = 0; round < rounds; round++)
    for (const alternative of names) {
      if (alternative === 'optimized-copy' && 'error' in saved) continue;
      const source = alternative === 'optimized-copy' ? copy : alternative === 'variant' ? variant! : graph;
      const result = runChild({ graph: source, alternative, numThreads, kv, saveTo: null }, logFile);
      if ('error' in result) errors.push(result.error);
      else runs.get(alternative)!.push(result.figures);
    }
  const optimizedCopyBytes = 'error' in saved ? null : folderBytes(copyDir);
  return { rows: names.map((name) => rowOf(name, runs.get(name)!)), optimizedCopyBytes, errors };
}

function printRows(rows: Row[]): void {
  const cell = (value: number | null | undefined) =>
    (value === undefined || value === null ? '—' : value.toFixed(0)).padStart(8);
  console.log(
    `${'alternative'.padEnd(15)}   build    load    fold  passes   inits prepack     RSS    anon prefill     ITL`,
  );
  for (const row of rows)
    console.log(
      `${row.alternative.padEnd(15)}${[row.buildMs, row.loadMs, row.foldMs, row.otherPassesMs, row.initializersMs, row.prepackMs, row.rssMb, row.anonMb, row.prefillMs].map(cell).join('')}${(row.itlP50Ms === undefined || row.itlP50Ms === null ? '—' : row.itlP50Ms.toFixed(1)).padStart(8)}`,
    );
}

/** The report as text: the machine and load, the table, the copy's disk and any errors. */
function printReport(report: Report): void {
  console.log(
    `${report.cpu}, ${report.numCpus} cores; load average ${report.loadAtStart.toFixed(1)} → ${report.loadAtEnd.toFixed(1)}; medians (ms, MB)`,
  );
  printRows(report.rows);
  const copy =
    report.optimizedCopyBytes === null ? '—' : `${(report.optimizedCopyBytes / 1e6).toFixed(0)} MB`;
  console.log(
    `optimized copy on disk: ${copy} (the converted data: ${(report.dataBytes / 1e6).toFixed(0)} MB)`,
  );
  if (report.convertMs !== null) console.log(`converted first in ${(report.convertMs / 1000).toFixed(1)} s`);
  for (const error of report.errors) console.log(`error: ${error}`);
}

/** `session-profile`: see the file's header. */
export function sessionProfile(argv: string[]): number {
  const { values } = parseArgs({
    args: argv,
    options: {
      gguf: { type: 'string' },
      graph: { type: 'string' },
      variant: { type: 'string' },
      rounds: { type: 'string', default: '2' },
      threads: { type: 'string', default: '2' },
      json: { type: 'boolean', default: false },
    },
  });
  if (!values.gguf === !values.graph) {
    console.error(
      'usage: cli.ts session-profile --gguf FILE | --graph CONVERTED/onnx/model.onnx [--variant FILE] [--rounds N] [--threads N] [--json]',
    );
    return 2;
  }
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'ff-session-profile-'));
  try {
    const loadAtStart = os.loadavg()[0]!;
    let graph = values.graph!;
    let convertMs: number | null = null;
    if (values.gguf) {
      convertMs = convertGguf(values.gguf, path.join(scratch, 'converted')).convertMs;
      graph = path.join(scratch, 'converted', CONVERTED_FILES.graph);
    }
    const profile = profileGraph(
      graph,
      values.variant ?? null,
      Number(values.rounds),
      Number(values.threads),
      scratch,
    );
    const report: Report = {
      cpu: os.cpus()[0]?.model ?? 'unknown',
      numCpus: os.cpus().length,
      loadAtStart,
      loadAtEnd: os.loadavg()[0]!,
      convertMs,
      dataBytes: statSync(`${graph}.data`).size,
      ...profile,
      alternatives: ALTERNATIVES,
    };
    if (values.json) console.log(JSON.stringify(report));
    else printReport(report);
    return profile.errors.length === 0 ? 0 : 1;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExportArgs } from '../../../src-main/cli/export/args';
import { openSqliteHistory } from '../../../src-main/history/history';
import { positiveControlRecords } from '../../../src-main/telemetry/trace/controls';
import { importTraceText } from '../../../src-main/telemetry/trace/import-trace';
import { seedToTimeline } from '../../../src-main/telemetry/trace/seed-record';
import { everyFinishTimelines } from '../telemetry/trace/every-finish';
import { traceProblems } from '../telemetry/trace/trace-event-format';

const CLI = new URL('../../../src-main/cli/export.ts', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'ff-export-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function exportCli(...args: string[]) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', CLI, ...args], { encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('npm run export: the command line', () => {
  it('needs one of --run and --live, a known --format, and says so with exit 2', () => {
    expect(parseExportArgs(['--run', 'abc', '--format', 'jsonl', '--out', 'x.jsonl'])).toEqual({
      kind: 'export',
      runId: 'abc',
      format: 'jsonl',
      outPath: 'x.jsonl',
      dataDir: null,
    });
    expect(parseExportArgs(['--live', '--format=chrome-trace', '--data-dir', 'd'])).toMatchObject({
      runId: null,
      format: 'chrome-trace',
      dataDir: 'd',
    });
    expect(parseExportArgs(['--list', '--json'])).toEqual({ kind: 'list', dataDir: null, isJson: true });
    expect(() => parseExportArgs(['--format', 'csv'])).toThrow('--run ID or --live');
    expect(() => parseExportArgs(['--run', 'a', '--live', '--format', 'csv'])).toThrow('--run ID or --live');
    expect(() => parseExportArgs(['--run', 'a'])).toThrow('--format csv|jsonl|chrome-trace');
    expect(() => parseExportArgs(['--run', 'a', '--format', 'xlsx'])).toThrow(
      'unknown format "xlsx": use --format csv, jsonl, chrome-trace',
    );
    expect(() => parseExportArgs(['--list', '--run', 'a'])).toThrow('--list takes no --run');
    expect(() => parseExportArgs(['--bogus'])).toThrow(/bogus/);
    const bad = exportCli('--run', 'a', '--format', 'pdf');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown format "pdf"');
    expect(bad.stderr).toContain('usage: npm run export');
  });
});

describe('npm run export: a history database', () => {
  const dataDir = join(dir, 'data');
  let runId: string;
  let importedRunId: string;
  beforeAll(async () => {
    const history = openSqliteHistory(join(dataDir, 'history.sqlite'));
    runId = history.runs.create({ name: 'every finish', startedWallMs: Date.UTC(2025, 0, 2, 3, 4, 5) }).runId;
    for (const t of everyFinishTimelines(runId)) history.writer.enqueue(t);
    importedRunId = history.runs.create({
      name: 'trace burst.jsonl',
      startedWallMs: Date.UTC(2025, 0, 3),
    }).runId;
    for (const r of positiveControlRecords()) history.writer.enqueue(seedToTimeline(r, importedRunId));
    for (const t of everyFinishTimelines(null).slice(0, 2)) history.writer.enqueue(t);
    history.writer.flush();
    history.close();
  });

  it('--list names every run by full id with its time, request count and source', () => {
    const { code, stdout } = exportCli('--list', '--data-dir', dataDir);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^run id\s+started\s+requests\s+source\s+name$/);
    expect(lines[1]).toMatch(
      new RegExp(
        `^${importedRunId}\\s+2025-01-0\\d \\d\\d:\\d\\d:\\d\\d\\s+10\\s+import\\s+trace burst\\.jsonl$`,
      ),
    );
    expect(lines[2]).toMatch(new RegExp(`^${runId}\\s+\\S+ \\S+\\s+8\\s+runtime\\s+every finish$`));
    const json = JSON.parse(exportCli('--list', '--json', '--data-dir', dataDir).stdout) as unknown[];
    expect(json).toHaveLength(2);
  });

  it('writes a run as JSONL to stdout (an id prefix is enough) that imports back to the same timelines', async () => {
    const { code, stdout, stderr } = exportCli(
      '--run',
      runId.slice(0, 8),
      '--format',
      'jsonl',
      '--data-dir',
      dataDir,
    );
    expect(code).toBe(0);
    expect(stderr).toContain(`exported 8 request(s) from run ${runId} as jsonl to stdout`);
    const { timelines } = await importTraceText(stdout);
    expect(timelines).toEqual(everyFinishTimelines(runId));
  });

  it('writes --out files in each format; --live takes the newest stored requests', () => {
    const trace = join(dir, 'run.trace.json');
    expect(
      exportCli('--run', runId, '--format', 'chrome-trace', '--out', trace, '--data-dir', dataDir).code,
    ).toBe(0);
    expect(traceProblems(JSON.parse(readFileSync(trace, 'utf8')))).toEqual([]);
    const csv = join(dir, 'live.csv');
    expect(exportCli('--live', '--format', 'csv', '--out', csv, '--data-dir', dataDir).code).toBe(0);
    expect(readFileSync(csv, 'utf8').trimEnd().split('\n')).toHaveLength(1 + 8 + 10 + 2);
  });

  it('fails with exit 1 and the reason for an unknown run, a missing history or an unwritable --out', () => {
    const unknown = exportCli('--run', 'zzz', '--format', 'csv', '--data-dir', dataDir);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no stored run "zzz": npm run export -- --list shows the stored runs');
    expect(unknown.stdout).toBe('');
    const missing = exportCli('--list', '--data-dir', join(dir, 'nothing-here'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`no history at ${join(dir, 'nothing-here', 'history.sqlite')}`);
    expect(existsSync(join(dir, 'nothing-here'))).toBe(false);
    const outDir = join(dir, 'out');
    const unwritable = exportCli(
      '--run',
      runId,
      '--format',
      'csv',
      '--out',
      join(outDir, 'x.csv'),
      '--data-dir',
      dataDir,
    );
    expect(unwritable.code).toBe(1);
    expect(unwritable.stderr).toMatch(/ENOENT/);
    expect(existsSync(outDir) ? readdirSync(outDir) : []).toEqual([]);
  });
});

describe('npm run export: names a trace brought in are printed, never obeyed', () => {
  const dataDir = join(dir, 'hostile');
  const HOSTILE = '\x1b]0;pwned\x07evil\x1b[2J\r\nnext\u202etxt.exe';
  // Any control character a terminal acts on, newline and tab aside (what the escapes must remove).
  // eslint-disable-next-line no-control-regex
  const CONTROL = /[\x00-\x08\x0b-\x1f\x7f\u202e]/;
  beforeAll(() => {
    const history = openSqliteHistory(join(dataDir, 'history.sqlite'));
    history.runs.create({ name: HOSTILE, startedWallMs: Date.UTC(2025, 0, 2) });
    history.close();
  });

  it('--list shows control characters in run names as escapes, on the run’s own line', () => {
    const { code, stdout } = exportCli('--list', '--data-dir', dataDir);
    expect(code).toBe(0);
    expect(stdout).not.toMatch(CONTROL);
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('\\x1b]0;pwned\\x07evil\\x1b[2J\\r\\nnext\\u202etxt.exe');
    // JSON keeps the name exactly (JSON.stringify escapes it for the terminal already).
    const json = JSON.parse(exportCli('--list', '--json', '--data-dir', dataDir).stdout) as {
      name: string;
    }[];
    expect(json[0]!.name).toBe(HOSTILE);
  });

  it('an unknown --run echoes what was typed with its control characters escaped', () => {
    const { code, stderr } = exportCli('--run', '\x1b]0;x\x07', '--format', 'csv', '--data-dir', dataDir);
    expect(code).toBe(1);
    expect(stderr).toContain('no stored run "\\x1b]0;x\\x07"');
    expect(stderr).not.toMatch(CONTROL);
  });
});

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { positiveControlRecords } from '../../../src-main/telemetry/trace/controls';

const CLI = new URL('../../../src-main/cli/profile.ts', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'ff-profile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function profile(...args: string[]) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', CLI, ...args], { encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function traceFile(name: string, lines: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

describe('npm run profile', () => {
  it('prints the report for a trace file under seed 003 key names with --json', () => {
    const path = traceFile(
      'burst.jsonl',
      positiveControlRecords().map((r) => JSON.stringify(r)),
    );
    const { code, stdout } = profile(path, '--json');
    expect(code).toBe(0);
    const json = JSON.parse(stdout) as Record<string, unknown>;
    expect(json).toMatchObject({
      requests: 10,
      boundary: 'client',
      dominant_ttft_phase: 'queue',
      dominant_e2e_phase: 'stream',
      p50_ttft_ms: 243,
      p95_ttft_ms: 718,
      p95_itl_ms: 22,
      p95_e2e_ms: 2126,
      phase_means_ms: { network_in: 18, network_to_first: 18, stream: 1408 },
    });
    for (const key of ['phase_parts_ms', 'server_p95_ttft_ms', 'percentile_method', 'report'])
      expect(json).toHaveProperty(key);
  });

  it('reads a trace with CRLF line ends, and reports at --boundary server on request', () => {
    const lines = positiveControlRecords().map((r) => JSON.stringify(r));
    const path = join(dir, 'windows.jsonl');
    writeFileSync(path, `${lines.join('\r\n')}\r\n`);
    const { code, stdout } = profile(path, '--json', '--boundary', 'server');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ requests: 10, boundary: 'server', p95_ttft_ms: 682 });
  });

  it('exits non-zero with file, line number and reason for a rejected file', () => {
    const records = positiveControlRecords().map((r) => JSON.stringify(r));
    const path = traceFile('bad.jsonl', [records[0]!, records[1]!, '{"request_id": "x"}']);
    const { code, stderr } = profile(path);
    expect(code).toBe(1);
    expect(stderr).toContain(`${path}:3: missing fields: prompt_tokens`);
  });

  it('skips and lists bad lines with --skip-bad-lines, still exiting 0', () => {
    const records = positiveControlRecords().map((r) => JSON.stringify(r));
    const path = traceFile('mixed.jsonl', [records[0]!, 'not json', records[1]!]);
    const { code, stdout, stderr } = profile(path, '--json', '--skip-bad-lines');
    expect(code).toBe(0);
    expect(stderr).toContain(`${path}:2: skipped: not JSON`);
    expect(JSON.parse(stdout)).toMatchObject({ requests: 2, skipped_lines: [{ line: 2 }] });
  });

  it('runs both controls with no file and exits 0 when both behave', () => {
    const { code, stdout } = profile();
    expect(code).toBe(0);
    expect(stdout).toMatch(/Positive control: passed/);
    expect(stdout).toMatch(/Negative control: rejected as expected: non-monotonic stamps/);
  });

  it('exits 1 with a message for an empty file and for a file of blank lines', () => {
    const empty = join(dir, 'empty.jsonl');
    writeFileSync(empty, '');
    for (const path of [empty, traceFile('blank.jsonl', ['', '   ', '\t', '\r'])]) {
      const { code, stdout, stderr } = profile(path, '--json');
      expect(code).toBe(1);
      expect(stderr).toContain(`${path}: no records: the file is empty or holds only blank lines`);
      expect(stdout).toBe('');
    }
  });

  it('reads a file with a UTF-8 byte-order mark and CRLF line ends like any other', () => {
    const records = positiveControlRecords().map((r) => JSON.stringify(r));
    const path = join(dir, 'windows.jsonl');
    writeFileSync(path, `\uFEFF${records.join('\r\n')}\r\n`);
    const { code, stdout, stderr } = profile(path, '--json');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ requests: records.length });
  });

  it('rejects a record claiming 120,000,000 output tokens as a bad line instead of crashing', () => {
    const records = positiveControlRecords().map((r) => JSON.stringify(r));
    const huge = JSON.stringify({
      ...positiveControlRecords()[0]!,
      request_id: 'huge',
      output_tokens: 120_000_000,
    });
    const path = traceFile('huge.jsonl', [records[0]!, huge, records[1]!]);
    const strict = profile(path);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain(`${path}:2: output_tokens: must be at most 1,000,000 tokens`);
    const lenient = profile(path, '--json', '--skip-bad-lines');
    expect(lenient.code).toBe(0);
    expect(JSON.parse(lenient.stdout)).toMatchObject({ requests: 2, skipped_lines: [{ line: 2 }] });
  });
});

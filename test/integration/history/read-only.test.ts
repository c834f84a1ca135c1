import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteHistory } from '../../../src-main/history/history';

const PROBE = new URL('./fixtures/open-probe.ts', import.meta.url).pathname;
/** Root ignores file modes, so as root the probe runs as `nobody` to meet a real read-only file. */
const AS_UNPRIVILEGED = process.getuid?.() === 0 ? { uid: 65_534, gid: 65_534 } : {};

let dir = '';
afterEach(() => {
  chmodSync(dir, 0o755);
  rmSync(dir, { recursive: true, force: true });
});

function probe(path: string): {
  isPersistent: boolean;
  reason: string | null;
  message: string | null;
  stats: { numDropped: number };
} {
  const result = spawnSync(process.execPath, ['--import', 'tsx', PROBE, path], {
    ...AS_UNPRIVILEGED,
    cwd: process.cwd(),
    encoding: 'utf8',
    env: { ...process.env, HOME: tmpdir() },
  });
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout.trim());
}

describe('a history database the app may not write', () => {
  it('gives a typed read-only reason for a read-only file, and the app keeps serving with persistence off', () => {
    dir = mkdtempSync(join(tmpdir(), 'ff-ro-'));
    chmodSync(dir, 0o777);
    const path = join(dir, 'history.db');
    openSqliteHistory(path).close();
    chmodSync(path, 0o444);
    const seen = probe(path);
    expect(seen).toMatchObject({ isPersistent: false, reason: 'read-only' });
    expect(seen.message).toMatch(/cannot be written/);
    expect(seen.stats.numDropped).toBe(1);
  });

  it('gives a typed read-only reason for a read-only folder', () => {
    dir = mkdtempSync(join(tmpdir(), 'ff-ro-'));
    const folder = join(dir, 'data');
    mkdirSync(folder);
    chmodSync(dir, 0o755);
    chmodSync(folder, 0o555);
    const seen = probe(join(folder, 'history.db'));
    expect(seen).toMatchObject({ isPersistent: false, reason: 'read-only' });
    expect(seen.message).toMatch(/folder .* is not writable/);
  });
});

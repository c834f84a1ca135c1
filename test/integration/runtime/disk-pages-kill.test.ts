import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DiskPages } from '../../../src-main/runtime/pages/disk-pages';
import { openSqliteHistory } from '../../../src-main/history/history';
import { runUntilKilled } from '../../support/kill-child';

const CHILD = path.join(import.meta.dirname, 'fixtures', 'page-spiller.ts');

describe('context pages on disk after a SIGKILL', () => {
  let dataDir: string;
  beforeEach(() => void (dataDir = mkdtempSync(path.join(os.tmpdir(), 'ff-disk-kill-'))));
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps every page indexed before the kill readable and never uses a half-written one', async () => {
    let numIndexed = 0;
    await runUntilKilled(CHILD, [dataDir], (line) => {
      numIndexed = Number(line.split(' ')[1]);
      return numIndexed >= 40;
    });
    const history = openSqliteHistory(path.join(dataDir, 'history.sqlite'));
    try {
      const warnings: string[] = [];
      const disk = new DiskPages({
        dir: path.join(dataDir, 'context-pages'),
        rows: history.contextPages!,
        log: { warn: (_topic, message) => void warnings.push(message) },
        budgetBytes: () => null,
        wallNow: () => Date.now(),
      });
      const rows = history.contextPages!.all();
      expect(rows.length).toBeGreaterThanOrEqual(numIndexed);
      // Only indexed page files are left: temp files and unindexed renames were swept at start.
      expect(readdirSync(path.join(dataDir, 'context-pages')).sort()).toEqual(
        rows.map((r) => r.fileName).sort(),
      );
      const read = await disk.read(rows);
      expect(read.refused).toBeNull();
      expect(read.pages).toHaveLength(rows.length);
      expect(warnings).toEqual([]);
    } finally {
      history.close();
    }
  });
});

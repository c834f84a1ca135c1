import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { isIntact } from '../../../src-main/history/open';
import { runUntilKilled } from '../../support/kill-child';

const CHILD = new URL('./fixtures/crash-writer.ts', import.meta.url).pathname;
const BATCH = 200;
/** Batches the child must report before it is killed. */
const KILL_AFTER = 8;

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the writer child, SIGKILLs it after KILL_AFTER committed batches, returns those batches. */
async function writeThenKill(path: string): Promise<number[]> {
  const committed: number[] = [];
  await runUntilKilled(CHILD, [path], (line) => {
    const match = /^committed (\d+)$/.exec(line);
    if (match) committed.push(Number(match[1]));
    return committed.length === KILL_AFTER;
  });
  return committed;
}

describe('crash safety', () => {
  it('survives SIGKILL mid-write: integrity_check is ok and every reported-committed timeline is there', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ff-crash-'));
    const path = join(dir, 'history.db');
    const committed = await writeThenKill(path);
    expect(committed.length).toBeGreaterThanOrEqual(KILL_AFTER);
    const db = new Database(path);
    expect(isIntact(db)).toBe(true);
    const has = db.prepare('SELECT count(*) AS n FROM requests WHERE request_id = ?');
    for (const batch of committed)
      for (let i = 0; i < BATCH; i++)
        expect((has.get(`crash-${batch}-${i}`) as { n: number }).n, `crash-${batch}-${i}`).toBe(1);
    const total = (db.prepare('SELECT count(*) AS n FROM requests').get() as { n: number }).n;
    expect(total % BATCH).toBe(0);
    db.close();
  });
});

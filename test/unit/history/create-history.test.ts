import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createHistory } from '../../../src-main/history/create-history';
import { timeline } from '../telemetry/report/timeline-fixture';
import { useTempDirs } from './temp-dir';

const tempDir = useTempDirs();

describe('createHistory', () => {
  it('logs a prune that fails, with the reason and how many failed in a row, and keeps serving', () => {
    const path = join(tempDir(), 'history.sqlite');
    const first = createHistory({ path, isPruning: false });
    first.writer.enqueue({ ...timeline({ id: 'old' }), wallStartMs: 0 }); // far past the retention window
    first.writer.flush();
    first.close();
    const db = new Database(path);
    db.exec(
      "CREATE TRIGGER no_delete BEFORE DELETE ON requests BEGIN SELECT RAISE(ABORT, 'the disk says no'); END",
    );
    db.close();
    const logged: string[] = [];
    const history = createHistory({
      path,
      log: { warn: (topic, message) => logged.push(`${topic}: ${message}`) },
    });
    expect(history.isPersistent).toBe(true);
    expect(logged).toEqual([
      expect.stringMatching(
        /^store: pruning old history failed \(1 in a row; retried hourly\): the disk says no$/,
      ),
    ]);
    history.close();
  });
});

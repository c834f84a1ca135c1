import { describe, expect, it } from 'vitest';
import type { BatchSink, WriteBatch } from '../../../src-main/history/writer/batch';
import { BatchedWriter } from '../../../src-main/history/writer/batched-writer';
import { ManualFlushTimer } from './manual-flush-timer';
import { timeline } from '../telemetry/report/timeline-fixture';

const sqliteError = (code: string, message: string) => Object.assign(new Error(message), { code });

/** A database that refuses the next `numRefusals` transactions with `code`, then writes. */
function refusingSink(code: string, numRefusals: number) {
  const written: WriteBatch[] = [];
  let numCalls = 0;
  let left = numRefusals;
  const sink: BatchSink = {
    writeBatch: (batch) => {
      numCalls++;
      if (left > 0) {
        left--;
        throw sqliteError(code, code === 'SQLITE_FULL' ? 'database or disk is full' : 'database is locked');
      }
      written.push(batch);
    },
  };
  return { sink, written, numCalls: () => numCalls, refuseAgain: (n: number) => (left = n) };
}

describe('BatchedWriter under a busy or full database', () => {
  it('keeps every item through busy refusals, says why, and writes each exactly once when the lock goes', () => {
    const timer = new ManualFlushTimer();
    const disk = refusingSink('SQLITE_BUSY', 3);
    const writer = new BatchedWriter(disk.sink, { maxBatch: 10, flushTimer: timer });
    for (let i = 0; i < 25; i++) writer.enqueue(timeline({ id: `t${i}` }));
    while (disk.numCalls() === 0) timer.runOne();
    expect(writer.health).toMatchObject({ state: 'busy', numWaiting: 25 });
    expect(writer.health.state === 'busy' && writer.health.reason).toMatch(
      /write lock \(database is locked\)/,
    );
    timer.runAll();
    const ids = disk.written.flatMap((b) => b.timelines.map((t) => t.requestId));
    expect(ids).toEqual(Array.from({ length: 25 }, (_, i) => `t${i}`));
    expect(writer.stats).toMatchObject({ numWritten: 25, numDropped: 0, numFailed: 0, numRetries: 3 });
    expect(writer.health).toEqual({ state: 'ok' });
  });

  it('waits for the retry timer instead of hammering a busy database on every enqueue', () => {
    const timer = new ManualFlushTimer();
    const disk = refusingSink('SQLITE_BUSY', 1);
    const writer = new BatchedWriter(disk.sink, { maxBatch: 2, flushTimer: timer });
    writer.enqueue(timeline());
    writer.enqueue(timeline());
    while (disk.numCalls() === 0) timer.runOne();
    const callsAfterRefusal = disk.numCalls();
    for (let i = 0; i < 10; i++) writer.enqueue(timeline());
    expect(disk.numCalls()).toBe(callsAfterRefusal);
    timer.runAll();
    expect(writer.stats).toMatchObject({ numWritten: 12, numPending: 0 });
  });

  it('holds items in memory while the disk is full and writes them once there is room', () => {
    const timer = new ManualFlushTimer();
    const disk = refusingSink('SQLITE_FULL', 2);
    const writer = new BatchedWriter(disk.sink, { maxBatch: 5, flushTimer: timer });
    for (let i = 0; i < 7; i++) writer.enqueue(timeline());
    while (disk.numCalls() === 0) timer.runOne();
    expect(writer.health).toMatchObject({ state: 'full', numWaiting: 7 });
    expect(writer.stats.isStopped).toBe(false);
    timer.runAll();
    expect(writer.stats).toMatchObject({ numWritten: 7, numDropped: 0, numPending: 0 });
    expect(writer.health.state).toBe('ok');
  });

  it('writes a run that could not be inserted before the timelines that reference it', () => {
    const timer = new ManualFlushTimer();
    const disk = refusingSink('SQLITE_BUSY', 0);
    const writer = new BatchedWriter(disk.sink, { flushTimer: timer });
    writer.enqueue(timeline({ id: 'before' }));
    writer.enqueueRun({ runId: 'r1', name: 'run', startedWallMs: 1, config: {} });
    writer.enqueue({ ...timeline({ id: 'after' }), runId: 'r1' });
    writer.flush();
    expect(disk.written).toHaveLength(1);
    expect(disk.written[0]!.runs.map((r) => r.runId)).toEqual(['r1']);
  });

  it('keeps the rest of a batch when the lock returns while it isolates a bad item', () => {
    const timer = new ManualFlushTimer();
    const written: string[] = [];
    let numBusy = 0;
    const sink: BatchSink = {
      writeBatch: (batch) => {
        if (batch.timelines.length > 1) throw sqliteError('SQLITE_CONSTRAINT_FOREIGNKEY', 'FOREIGN KEY');
        const id = batch.timelines[0]!.requestId;
        if (id === 'bad') throw sqliteError('SQLITE_CONSTRAINT_FOREIGNKEY', 'FOREIGN KEY');
        if (id === 'c' && numBusy++ === 0) throw sqliteError('SQLITE_BUSY', 'database is locked');
        written.push(id);
      },
    };
    const writer = new BatchedWriter(sink, { flushTimer: timer });
    for (const id of ['a', 'bad', 'c', 'd']) writer.enqueue(timeline({ id }));
    timer.runAll();
    expect(written).toEqual(['a', 'c', 'd']);
    expect(writer.stats).toMatchObject({ numWritten: 3, numFailed: 1, numDropped: 0, numPending: 0 });
  });
});

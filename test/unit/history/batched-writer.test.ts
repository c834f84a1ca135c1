import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src-main/telemetry/clock';
import type { BatchSink, WriteBatch } from '../../../src-main/history/writer/batch';
import { BatchedWriter } from '../../../src-main/history/writer/batched-writer';
import { ManualFlushTimer } from './manual-flush-timer';
import { timeline } from '../telemetry/report/timeline-fixture';

/** A database that takes `diskMs` of (simulated) time per transaction, on a hand-moved clock. */
function slowSink(clock: ManualClock, diskMs: number) {
  const batches: WriteBatch[] = [];
  let isInsideEnqueue = false;
  let numCallsDuringEnqueue = 0;
  const sink: BatchSink = {
    writeBatch: (batch) => {
      if (isInsideEnqueue) numCallsDuringEnqueue++;
      clock.advance(diskMs);
      batches.push(batch);
    },
  };
  const enqueueing = <T>(fn: () => T): T => {
    isInsideEnqueue = true;
    try {
      return fn();
    } finally {
      isInsideEnqueue = false;
    }
  };
  return { sink, batches, enqueueing, numCallsDuringEnqueue: () => numCallsDuringEnqueue };
}

describe('BatchedWriter', () => {
  it('never touches the sink on the caller stack, even past the batch size', () => {
    const clock = new ManualClock();
    const flushTimer = new ManualFlushTimer();
    const disk = slowSink(clock, 500);
    const writer = new BatchedWriter(disk.sink, { maxBatch: 10, flushTimer });
    disk.enqueueing(() => {
      for (let i = 0; i < 35; i++) writer.enqueue(timeline());
    });
    expect(disk.batches).toHaveLength(0);
    expect(writer.stats.numPending).toBe(35);
    flushTimer.runAll();
    expect(disk.numCallsDuringEnqueue()).toBe(0);
    expect(disk.batches.map((b) => b.timelines.length)).toEqual([10, 10, 10, 5]);
  });

  it('keeps enqueue cost at zero simulated time while every flush takes 500 ms of disk', () => {
    const clock = new ManualClock();
    const flushTimer = new ManualFlushTimer();
    const disk = slowSink(clock, 500);
    const writer = new BatchedWriter(disk.sink, { maxBatch: 100, flushTimer });
    const enqueueCostsMs: number[] = [];
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 100; i++) {
        const before = clock.now();
        writer.enqueue(timeline());
        enqueueCostsMs.push(clock.now() - before);
      }
      // The event loop turns between serving steps; only then does the slow disk run.
      flushTimer.runAll();
    }
    expect(new Set(enqueueCostsMs)).toEqual(new Set([0]));
    expect(disk.batches).toHaveLength(20);
    expect(clock.now() - 1_000).toBe(20 * 500);
  });

  it('flushes a light trickle on the timer, and flush() drains everything synchronously', () => {
    const flushTimer = new ManualFlushTimer();
    const disk = slowSink(new ManualClock(), 1);
    const writer = new BatchedWriter(disk.sink, { maxBatch: 1_000, flushTimer });
    writer.enqueue(timeline());
    expect(flushTimer.numQueued).toBe(1);
    flushTimer.runAll();
    expect(disk.batches).toHaveLength(1);
    for (let i = 0; i < 3; i++) writer.enqueue(timeline());
    writer.flush();
    expect(disk.batches).toHaveLength(2);
    expect(writer.stats).toMatchObject({ numPending: 0, numWritten: 4, numBatches: 2 });
  });

  it('isolates an item the database refuses: its neighbours are written, it is counted and reported', () => {
    const written: string[] = [];
    const errors: unknown[] = [];
    const sink: BatchSink = {
      writeBatch: (batch) => {
        if (batch.timelines.some((t) => t.runId === 'no-such-run'))
          throw Object.assign(new Error('FOREIGN KEY constraint failed'), {
            code: 'SQLITE_CONSTRAINT_FOREIGNKEY',
          });
        written.push(...batch.timelines.map((t) => t.requestId));
      },
    };
    const writer = new BatchedWriter(sink, {
      flushTimer: new ManualFlushTimer(),
      onItemError: (e) => errors.push(e),
    });
    writer.enqueue(timeline({ id: 'a' }));
    writer.enqueue({ ...timeline({ id: 'bad' }), runId: 'no-such-run' });
    writer.enqueue(timeline({ id: 'c' }));
    writer.flush();
    expect(written).toEqual(['a', 'c']);
    expect(writer.stats).toMatchObject({ numWritten: 2, numFailed: 1 });
    expect(errors).toHaveLength(1);
  });

  it('stops for good when the database is lost, dropping and counting what is queued', () => {
    const fatal: unknown[] = [];
    const sink: BatchSink = {
      writeBatch: () => {
        throw Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' });
      },
    };
    const writer = new BatchedWriter(sink, {
      maxBatch: 2,
      flushTimer: new ManualFlushTimer(),
      onFatal: (e) => fatal.push(e),
    });
    for (let i = 0; i < 5; i++) writer.enqueue(timeline());
    writer.flush();
    writer.enqueue(timeline());
    expect(fatal).toHaveLength(1);
    expect(writer.stats).toMatchObject({ isStopped: true, numFailed: 2, numDropped: 4, numPending: 0 });
  });

  it('drops and counts new items past maxPending instead of waiting for a lagging disk', () => {
    const writer = new BatchedWriter(
      { writeBatch: () => undefined },
      { maxBatch: 1_000, maxPending: 3, flushTimer: new ManualFlushTimer() },
    );
    for (let i = 0; i < 5; i++) writer.enqueue(timeline());
    expect(writer.stats).toMatchObject({ numPending: 3, numDropped: 2 });
  });

  it('holds a client TTFT update until every earlier timeline is written', () => {
    const flushTimer = new ManualFlushTimer();
    const disk = slowSink(new ManualClock(), 0);
    const writer = new BatchedWriter(disk.sink, { maxBatch: 2, flushTimer });
    for (let i = 0; i < 3; i++) writer.enqueue(timeline({ id: `t${i}` }));
    writer.enqueueClientTtft({ requestId: 't2', clientTtftMs: 80, transportMs: 10 });
    flushTimer.runAll();
    const batchOf = (pred: (b: WriteBatch) => boolean) => disk.batches.findIndex(pred);
    expect(batchOf((b) => b.clientTtfts.length > 0)).toBeGreaterThanOrEqual(
      batchOf((b) => b.timelines.some((t) => t.requestId === 't2')),
    );
  });
});

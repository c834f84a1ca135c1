import { describe, expect, it } from 'vitest';
import { ServiceFailure } from '../../../src-main/service/contract/result';
import { ImportBudget } from '../../../src-main/service/import-budget';

/** A job the test finishes by hand; `isStarted` says whether the budget let it begin. */
function heldJob() {
  let finish: (value: string) => void = () => undefined;
  let fail: (error: Error) => void = () => undefined;
  const job = { isStarted: false, finish: (v: string) => finish(v), fail: (e: Error) => fail(e) };
  const run = () => {
    job.isStarted = true;
    return new Promise<string>((resolve, reject) => ((finish = resolve), (fail = reject)));
  };
  return { job, run };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('ImportBudget: one budget for every trace import', () => {
  it('runs imports side by side while their bytes fit, the next in arrival order once room frees', async () => {
    const budget = new ImportBudget({ maxBytesInFlight: 100, maxWaiting: 4 });
    const a = heldJob();
    const b = heldJob();
    const c = heldJob();
    const d = heldJob();
    const results = [
      budget.run(60, a.run),
      budget.run(40, b.run),
      budget.run(50, c.run),
      budget.run(10, d.run),
    ];
    await tick();
    expect([a, b, c, d].map((j) => j.job.isStarted)).toEqual([true, true, false, false]);
    expect(budget.stats).toEqual({ numRunning: 2, numWaiting: 2, numBytesRunning: 100 });
    a.job.finish('a');
    await tick();
    // c (50) fits now; d (10) came after it and fits too, so it starts as well.
    expect([c, d].map((j) => j.job.isStarted)).toEqual([true, true]);
    b.job.finish('b');
    c.job.finish('c');
    d.job.finish('d');
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c', 'd']);
    expect(budget.stats).toEqual({ numRunning: 0, numWaiting: 0, numBytesRunning: 0 });
  });

  it('refuses at once, with queue_full and the reason, when too many wait; starts nothing for it', async () => {
    const budget = new ImportBudget({ maxBytesInFlight: 100, maxWaiting: 1 });
    const a = heldJob();
    const b = heldJob();
    const c = heldJob();
    const running = budget.run(100, a.run);
    const waiting = budget.run(1, b.run);
    const refused = budget.run(1, c.run);
    await expect(refused).rejects.toBeInstanceOf(ServiceFailure);
    await expect(refused).rejects.toMatchObject({
      code: 'queue_full',
      message: expect.stringMatching(
        /^2 trace imports are running or waiting .*try again when one has finished$/,
      ),
    });
    expect(c.job.isStarted).toBe(false);
    a.job.finish('a');
    await running;
    await tick();
    b.job.finish('b');
    expect(await waiting).toBe('b');
  });

  it('runs a file larger than the budget alone, counts an unknown size as the largest, and frees room after a failure', async () => {
    const budget = new ImportBudget({ maxBytesInFlight: 100, maxWaiting: 4 });
    const huge = heldJob();
    const unknown = heldJob();
    const failing = budget.run(1_000, huge.run);
    const next = budget.run(null, unknown.run);
    await tick();
    expect([huge.job.isStarted, unknown.job.isStarted]).toEqual([true, false]);
    huge.job.fail(new Error('worker ran out of memory'));
    await expect(failing).rejects.toThrow('worker ran out of memory');
    await tick();
    expect(unknown.job.isStarted).toBe(true);
    expect(budget.stats.numBytesRunning).toBe(100);
    unknown.job.finish('u');
    await next;
    expect(budget.stats).toEqual({ numRunning: 0, numWaiting: 0, numBytesRunning: 0 });
  });
});

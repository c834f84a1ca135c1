import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Runtime } from '../../../../src-main/runtime/runtime';
import type { Timeline } from '../../../../src-main/telemetry/timeline/schema';
import { submitAndTally } from '../../../support/outcome-tally';
import { expectNothingHeld } from '../../../support/runtime';
import { scriptedRequest, scriptedRuntime } from '../../../support/scripted-runtime';

// A settings change that reaches the engine's structure (page size) retires the RAM tier,
// scheduler and loop and builds new ones. The retired loop must hear nothing afterwards: no
// slot event, no iteration, no timeline of its own reaching the runtime.

let runtime: Runtime | null = null;
afterEach(async () => {
  await runtime?.close();
  runtime = null;
});

/** The runtime's current engine loop (private: watching the retired one is the point of this test). */
function loopOf(runtime: Runtime): object {
  return (runtime as unknown as { parts: { engine: object } }).parts.engine;
}

describe('a retired engine', () => {
  it('hears nothing once rebuilt: a worker failure under load reaches only the new loop, and each timeline is told once', async () => {
    const built = await scriptedRuntime({ maxSeats: 4 });
    runtime = built.runtime;
    const timelines: Timeline[] = [];
    runtime.onTimeline((timeline) => timelines.push(timeline));
    await Promise.all([1, 2, 3].map(() => submitAndTally(runtime!, scriptedRequest()).done));
    const retired = loopOf(runtime);
    const failedSlot = vi.spyOn(retired as { failSlot: () => void }, 'failSlot');
    const iterated = vi.spyOn(retired as { iterate: () => void }, 'iterate');

    // The last step's reply is still being applied when its requests hear their finish.
    await vi.waitFor(() => runtime!.reconfigure({ pageSize: 32 }));
    expect(loopOf(runtime)).not.toBe(retired);
    // It heard the rebuild's own evictions while it was still the runtime's loop; from now on, nothing.
    failedSlot.mockClear();
    iterated.mockClear();
    const current = loopOf(runtime);
    const failedByCurrent = vi.spyOn(current as { failSlot: () => void }, 'failSlot');

    // Load on the new loop: its slot reloads, four requests decode, and the worker dies.
    await submitAndTally(runtime, scriptedRequest()).done;
    const runner = built.runners.at(-1)!;
    runner.holdNextStepAt('decode', (job) => job.decode?.rows.length === 4);
    const heard = [1, 2, 3, 4].map(() => submitAndTally(runtime!, scriptedRequest({ maxTokens: 50 })));
    await runner.whenHeld();
    runner.die();
    await Promise.all(heard.map((h) => h.done));

    expect(failedSlot).not.toHaveBeenCalled();
    expect(iterated).not.toHaveBeenCalled();
    expect(failedByCurrent).toHaveBeenCalledOnce();
    expect(heard.map((h) => h.outcomes.map((o) => o.timeline.finishReason))).toEqual([
      ['error'],
      ['error'],
      ['error'],
      ['error'],
    ]);
    const ids = timelines.map((t) => t.requestId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(3 + 1 + 4);
    expectNothingHeld(runtime);
  });
});

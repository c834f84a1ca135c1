import { afterEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../../../src-main/runtime/runtime';
import { BUNDLED_MODEL_ID } from '../../../support/models';
import { scriptedRuntime } from '../../../support/scripted-runtime';

let runtime: Runtime | null = null;
afterEach(async () => {
  await runtime?.close();
  runtime = null;
});

describe('Keep threads ready while answering (thread spinning)', () => {
  it('reaches each slot’s load job as the setting is, and a change reloads the slot with the new value', async () => {
    const scripted = await scriptedRuntime({ numThreads: 2 });
    runtime = scripted.runtime;
    await runtime.prefetch(BUNDLED_MODEL_ID);
    expect(scripted.runners[0]!.loadJobs.map((job) => [job.numThreads, job.canSpinThreads])).toEqual([
      [2, true],
    ]);

    const applied = await runtime.reconfigure({ canSpinThreads: false });
    expect(applied.level).toBe('slots');
    expect(applied.evictedSlotIds).toHaveLength(1);
    await runtime.prefetch(BUNDLED_MODEL_ID);
    expect(scripted.runners.at(-1)!.loadJobs.map((job) => job.canSpinThreads)).toEqual([false]);
  });
});

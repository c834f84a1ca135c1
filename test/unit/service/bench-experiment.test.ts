import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Runtime } from '../../../src-main/runtime/runtime';
import type { SettingsPatch } from '../../../src-main/runtime/settings/schema';
import { SettingsRefused } from '../../../src-main/runtime/applied-settings';
import type { CoreDeps } from '../../../src-main/service/core-deps';
import { runExperiment } from '../../../src-main/service/bench-experiment';
import { scriptedRuntime } from '../../support/scripted-runtime';

// An experiment reconfigures the runtime for each arm and puts the user's settings back at the
// end. When that last step is refused, the experiment's runs still stand, and the log says which
// settings are left in use and what to do: the catch tells, it does not hide.

let runtime: Runtime | null = null;
afterEach(async () => {
  await runtime?.close();
  runtime = null;
});

describe('an experiment whose settings cannot be put back', () => {
  it("keeps its runs and logs that the last arm's settings are still in use, with the reason", async () => {
    const built = await scriptedRuntime();
    runtime = built.runtime;
    const original = runtime.settings;
    const armSeats = original.maxSeats + 1;
    const reconfigure = runtime.reconfigure.bind(runtime);
    // The arm's change applies; the restore (the user's own settings again) is refused.
    vi.spyOn(runtime, 'reconfigure').mockImplementation((patch: SettingsPatch) =>
      patch.maxSeats === original.maxSeats
        ? Promise.reject(new SettingsRefused('a chat is being answered'))
        : reconfigure(patch),
    );
    const warn = vi.fn();
    const created: string[] = [];
    const deps = {
      runtime,
      clock: built.clock,
      log: { warn },
      history: {
        runs: {
          create: () => {
            created.push(`run-${created.length + 1}`);
            return { runId: created.at(-1)! };
          },
        },
      },
    } as unknown as CoreDeps;

    const runIds = await runExperiment(
      deps,
      { setting: 'maxSeats', values: [String(armSeats)], numRequests: 2, burstSize: 2, ratePerS: null },
      () => undefined,
    );

    expect(runIds).toEqual(['run-1']);
    expect(runtime.settings.maxSeats).toBe(armSeats);
    expect(warn).toHaveBeenCalledExactlyOnceWith(
      'bench',
      "the experiment could not put your settings back (a chat is being answered); the last arm's are still in use: set them again in Settings",
    );
  });
});

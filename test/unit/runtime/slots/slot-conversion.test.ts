import { describe, expect, it } from 'vitest';
import type { CatalogueModel } from '../../../../src-main/runtime/model/catalogue';
import { SlotRegistry } from '../../../../src-main/runtime/slots/slot-registry';
import type { SlotRegistryOptions } from '../../../../src-main/runtime/slots/slot-registry-options';
import type { Slot, SlotConversion } from '../../../../src-main/runtime/slots/slot';
import { ManualClock } from '../../../../src-main/telemetry/clock';
import { ScriptedRunner } from '../../../support/scripted-runner';
import { scriptedRuntime, SCRIPTED_TIMES } from '../../../support/scripted-runtime';
import { BUNDLED_MODEL_ID } from '../../../support/models';

const silentLog = {
  warn: () => {},
  error: () => {},
  info: () => {},
} as unknown as SlotRegistryOptions['log'];

/** The bundled model as a model whose first load converts (what a GGUF's entry is before conversion). */
async function convertingModel(): Promise<CatalogueModel> {
  const { runtime } = await scriptedRuntime();
  const model = runtime.catalogue.resolve(BUNDLED_MODEL_ID);
  await runtime.close();
  if (model instanceof Error) throw model;
  return { ...model, conversion: { file: '/models/x.gguf', dir: '/cache/gguf/x', bytesTotal: 300 } };
}

function registryWith(prepareModel: SlotRegistryOptions['prepareModel'], clock: ManualClock) {
  return new SlotRegistry({
    clock,
    log: silentLog,
    budgetBytes: 1 << 30,
    pageSize: 16,
    numThreads: 1,
    canSpinThreads: true,
    canFuseAtLoad: true,
    graphCacheDir: null,
    providerFor: () => ({ provider: 'cpu', isCpuFallbackAllowed: false }),
    createRunner: () => new ScriptedRunner(clock, SCRIPTED_TIMES),
    spare: null,
    prepareModel,
    dropPages: () => {},
  });
}

describe('a slot whose model converts on its first load', () => {
  it('shows bytes done while converting, then loads the converted model and clears the progress', async () => {
    const model = await convertingModel();
    const clock = new ManualClock();
    const converted = { ...model, conversion: null, graph: { ...model.graph, weightBytes: 123 } };
    const seen: Array<SlotConversion | null> = [];
    const registry = registryWith(async (m, onProgress) => {
      expect(m).toBe(model);
      onProgress(100, 300);
      onProgress(300, 300);
      return converted;
    }, clock);
    registry.onConversion((slot: Slot) => seen.push(slot.conversion && { ...slot.conversion }));
    const slot = await registry.ensureResident(model, 'prefetch');
    expect(seen.map((c) => c && [c.bytesDone, c.bytesTotal])).toEqual([
      [0, 300],
      [100, 300],
      [300, 300],
      null,
    ]);
    expect(seen[0]!.startedAtWallMs).toBe(clock.wallNow() - SCRIPTED_TIMES.loadMs);
    expect(slot.status).toBe('resident');
    expect(slot.model).toBe(converted);
    expect(slot.conversion).toBeNull();
  });

  it('fails the load with the conversion’s reason and clears the progress', async () => {
    const model = await convertingModel();
    const registry = registryWith(async () => {
      throw new Error('converting it needs about 2.0 GB free in /cache/gguf; 0.5 GB is free');
    }, new ManualClock());
    await expect(registry.ensureResident(model, 'request')).rejects.toThrow(/needs about 2\.0 GB free/);
    const slot = registry.slotOf(model.modelId)!;
    expect(slot.status).toBe('failed');
    expect(slot.failureReason).toMatch(/needs about 2\.0 GB free/);
    expect(slot.conversion).toBeNull();
  });
});

describe('a new revision of a model while its old revision still converts', () => {
  it('loads the new revision on a slot of its own and retires the old one, never returning the old load', async () => {
    const model = await convertingModel();
    const clock = new ManualClock();
    let finishConversion = () => {};
    const registry = registryWith(
      (m) => new Promise((resolve) => (finishConversion = () => resolve({ ...m, conversion: null }))),
      clock,
    );
    const oldLoad = registry.ensureResident(model, 'request');
    const newRevision = {
      ...model,
      conversion: null,
      revisions: { ...model.revisions, modelRevision: 'new-bytes' },
    };
    const fresh = await registry.ensureResident(newRevision, 'request');
    expect(fresh.model.revisions.modelRevision).toBe('new-bytes');
    finishConversion();
    const old = await oldLoad;
    expect(old).not.toBe(fresh);
    expect(old.isRetiring).toBe(true);
    expect(registry.slotOf(model.modelId)).toBe(fresh);
    await registry.closeRetired(old);
    expect(old.runner).toBeNull();
  });
});

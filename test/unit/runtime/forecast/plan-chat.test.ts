import { describe, expect, it } from 'vitest';
import type { CatalogueModel, ModelCatalogue } from '../../../../src-main/runtime/model/catalogue';
import type { RamPages } from '../../../../src-main/runtime/pages/ram-pages';
import { planChat } from '../../../../src-main/runtime/forecast/plan-chat';
import type { PlanDeps } from '../../../../src-main/runtime/forecast/plan-chat';
import { PrefillRate } from '../../../../src-main/runtime/forecast/prefill-rate';
import type { SlotRegistry } from '../../../../src-main/runtime/slots/slot-registry';
import type { Timeline } from '../../../../src-main/telemetry/timeline/schema';
import { scriptedRuntime } from '../../../support/scripted-runtime';
import { BUNDLED_MODEL_ID } from '../../../support/models';
import { timeline } from '../../telemetry/report/timeline-fixture';

const PAGE_SIZE = 16;
const MIB = 1_048_576;

/** A measured answer: 100 prompt tokens prefilled at 0.5 ms each, optionally a disk read of 2 MiB in 8 ms. */
function measured(modelId: string, withDiskRead: boolean): Timeline {
  const readMs = withDiskRead ? 8 : 0;
  const t = timeline({
    modelId,
    parts: { route: 1, queue: readMs, prefill: 50, emit: 0 },
    numPromptTokens: 100,
  });
  const diskRead = withDiskRead ? { numPages: 2, numBytes: 2 * MIB, readMs, refused: null } : undefined;
  return {
    ...t,
    diagnosis: { pageMiss: null, slotLoad: null, queuedBehind: [], numQueuedBehind: 0, diskRead },
  };
}

async function bundledModel(): Promise<CatalogueModel> {
  const { runtime } = await scriptedRuntime();
  const model = runtime.catalogue.resolve(BUNDLED_MODEL_ID);
  await runtime.close();
  if (model instanceof Error) throw model;
  return model;
}

/** Plan deps on `model` whose RAM tier holds 1 page in RAM and `numDiskPages` on disk. */
function depsWith(model: CatalogueModel, numDiskPages: number, rate: PrefillRate): PlanDeps {
  const pages = {
    peek: () => ({ numRamPages: 1, numDiskPages, numDiskBytes: numDiskPages * MIB }),
  } as unknown as RamPages;
  return {
    catalogue: { resolve: () => model, defaultModelId: () => model.modelId } as unknown as ModelCatalogue,
    registry: { slotOf: () => ({ status: 'resident', pageIdentity: {} }) } as unknown as SlotRegistry,
    pages,
    pageSize: PAGE_SIZE,
    limits: {
      maxPromptTokens: 1_024,
      maxOutputTokens: 64,
      defaultMaxTokens: 4,
      maxQueue: 8,
      defaultDeadlineMs: null,
      defaultModel: null,
    },
    rate,
    promptThreads: null,
  };
}

const LONG_CHAT = [{ role: 'user' as const, content: 'Tell me about the rain in the valley. '.repeat(12) }];

describe('the send forecast with remembered context on disk', () => {
  it('counts disk pages as reuse and adds their read at the measured disk rate', async () => {
    const model = await bundledModel();
    const rate = new PrefillRate();
    rate.observe(measured(model.modelId, true));
    const plan = await planChat(depsWith(model, 3, rate), { messages: LONG_CHAT, overflow: 'refuse' });
    expect(plan.numCachedPages).toBe(4);
    expect(plan.numDiskPages).toBe(3);
    expect(plan.numDiskBytes).toBe(3 * MIB);
    expect(plan.estDiskReadMs).toBeCloseTo(12, 9); // 3 MiB at 8 ms per 2 MiB
    const est = rate.estimate(model.modelId)!;
    expect(plan.estTtftMs).toBeCloseTo(est.overheadMs + plan.numNewTokens * est.msPerToken + 12, 9);
  });

  it('before any disk read was measured, forecasts the disk pages as prefilled (never too low)', async () => {
    const model = await bundledModel();
    const rate = new PrefillRate();
    rate.observe(measured(model.modelId, false));
    const plan = await planChat(depsWith(model, 3, rate), { messages: LONG_CHAT, overflow: 'refuse' });
    expect(plan.estDiskReadMs).toBeNull();
    const est = rate.estimate(model.modelId)!;
    const numForecast = plan.numNewTokens + 3 * PAGE_SIZE;
    expect(plan.estTtftMs).toBeCloseTo(est.overheadMs + numForecast * est.msPerToken, 9);
  });
});

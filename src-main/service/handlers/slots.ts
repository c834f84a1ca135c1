import { ServiceFailure } from '../contract/result';
import type { PageStats } from '../contract/schemas';
import type { Slot } from '../../runtime/slots/slot';
import type { CoreDeps } from '../core-deps';
import { toModelEntry, toPageStats, toSlotEventPayload, toSlotSnapshot } from '../mappers';
import type { Handlers } from '../service';
import { readQualityResults } from '../quality-file';

type SlotHandlers = Pick<
  Handlers,
  | 'models.list'
  | 'models.quality'
  | 'models.conversionCache'
  | 'models.clearConversionCache'
  | 'slots.list'
  | 'slots.events'
  | 'slots.prefetch'
  | 'slots.evict'
  | 'slots.keep'
  | 'pages.stats'
  | 'pages.forget'
  | 'engine.stats'
>;

/** Models, slots (prefetch / evict / keep), context pages and engine load. */
export function slotHandlers(deps: CoreDeps): SlotHandlers {
  const { runtime, clock } = deps;
  const slotOrFail = (slotId: string) => {
    try {
      return runtime.slotById(slotId);
    } catch (error) {
      throw new ServiceFailure('not_found', (error as Error).message);
    }
  };
  const snapshot = (slot: Slot) => toSlotSnapshot(slot, runtime.numSeatedOn(slot), clock);
  return {
    'models.list': async () =>
      (await runtime.refreshModels()).map((e) => ({ ...toModelEntry(e), origin: deps.origins.of(e.path) })),
    'models.quality': () => {
      const results = readQualityResults(deps.dataDir);
      if (results instanceof Error) throw new ServiceFailure('unavailable', results.message);
      return results;
    },
    'models.conversionCache': async () => {
      const cache = await runtime.conversionCache();
      return {
        ...cache,
        folders: cache.folders.map(({ sourcePath, numBytes, isInUse }) => ({
          sourcePath,
          numBytes,
          isInUse,
        })),
      };
    },
    'models.clearConversionCache': () => runtime.clearConversionCache(),
    'slots.list': () => runtime.slots().map((slot) => snapshot(slot)),
    'slots.events': ({ sinceWallMs, limit }) => {
      const events = runtime
        .slotEvents()
        .filter((e) => sinceWallMs === undefined || e.atWallMs >= sinceWallMs);
      return events.slice(-(limit ?? 1000)).map(toSlotEventPayload);
    },
    'slots.prefetch': async ({ modelId }) => {
      // Unknown (with the names it knows), not supported yet or broken: the catalogue says which.
      const model = runtime.catalogue.resolve(modelId);
      if (model instanceof Error) throw new ServiceFailure('not_found', model.message);
      try {
        return snapshot(await runtime.prefetch(modelId));
      } catch (error) {
        throw new ServiceFailure('unavailable', (error as Error).message);
      }
    },
    'slots.evict': async ({ slotId }) => {
      const slot = slotOrFail(slotId);
      try {
        await runtime.evict(slot.slotId);
      } catch (error) {
        throw new ServiceFailure('unavailable', (error as Error).message);
      }
      return snapshot(slot);
    },
    'slots.keep': ({ slotId, keepAlive }) => snapshot(runtime.keep(slotOrFail(slotId).slotId, keepAlive)),
    'pages.stats': () => toPageStats(runtime.pageSummary(), conversationCoverage(deps)),
    'pages.forget': async ({ modelId }) => {
      if (modelId === undefined) return { numPages: await runtime.forgetDiskPages(null) };
      const model = runtime.catalogue.resolve(modelId);
      if (model instanceof Error) throw new ServiceFailure('not_found', model.message);
      return { numPages: await runtime.forgetDiskPages([model.revisions.modelRevision]) };
    },
    'engine.stats': () => ({ atWallMs: clock.wallNow(), ...runtime.queueSummary() }),
  };
}

/** Latest prompt and cached tokens per conversation, from the live window. */
function conversationCoverage(deps: CoreDeps): PageStats['conversations'] {
  const latest = new Map<string, { numPromptTokens: number; numCachedTokens: number }>();
  for (const t of deps.window.toArray()) {
    if (t.conversationId)
      latest.set(t.conversationId, {
        numPromptTokens: t.numPromptTokens,
        numCachedTokens: t.numCachedTokens,
      });
  }
  return [...latest].slice(-50).map(([conversationId, v]) => ({ conversationId, ...v }));
}

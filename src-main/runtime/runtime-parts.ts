import os from 'node:os';
import { sweepGraphCache } from './slot-worker/graph-cache-sweep';
import { RunnerClient } from './slot-worker/runner-client';
import type { RunnerOptions } from './slot-worker/session-options';
import { SpareWorker } from './slot-worker/spare-worker';
import { prepareGguf } from './model/gguf/prepare-gguf';
import { parseModelRef } from './model/variant-names';
import type { ModelCatalogue } from './model/catalogue';
import { DiskPages } from './pages/disk-pages';
import { RamPages } from './pages/ram-pages';
import type { PageIdentity } from './pages/page-key';
import { prefetchPages } from './pages/page-prefetch';
import type { PrefetchOutcome } from './pages/page-prefetch';
import { EngineLoop } from './engine-loop/engine-loop';
import { Scheduler } from './scheduler/scheduler';
import { threadsOf } from './settings/schema';
import { SlotRegistry } from './slots/slot-registry';
import type { PromptThreads } from './tokenize/prompt-threads';
import type { RuntimeOptions } from './runtime-options';

/**
 * What a runtime rebuilds when a setting reaches the engine's structure: pages, the scheduler
 * (with its seats, page holds and K/V budget) and the loop. `dispose` retires all of them: the
 * loop cancels what it still had, stops hearing slot events and stops its timers.
 */
export interface EngineParts {
  pages: RamPages | null;
  scheduler: Scheduler;
  engine: EngineLoop;
  dispose(): void;
}

/** Threads each slot's session gets on this machine (the setting, or all cores but one). */
export function slotThreadsOf(options: RuntimeOptions): number {
  return threadsOf(options, os.availableParallelism());
}

/** How every slot's session runs its threads on this machine: how many (slotThreadsOf), and whether they spin. */
export function slotSessionThreadsOf(
  options: RuntimeOptions,
): Pick<RunnerOptions, 'numThreads' | 'canSpinThreads'> {
  return { numThreads: slotThreadsOf(options), canSpinThreads: options.canSpinThreads };
}

/**
 * What every slot builds its session with, from the runtime's options: page size, threads,
 * spinning, fusion at load. A change to any of them needs every slot unloaded first.
 */
export function slotBuildOptionsOf(
  options: RuntimeOptions,
): Pick<RunnerOptions, 'numThreads' | 'canSpinThreads'> & Pick<RuntimeOptions, 'pageSize' | 'canFuseAtLoad'> {
  return {
    pageSize: options.pageSize,
    ...slotSessionThreadsOf(options),
    canFuseAtLoad: options.canFuseAtLoad,
  };
}

/**
 * The slot registry for these options (threads resolved against this machine's cores), with
 * a spare slot worker unless `isSpareWorker` is off.
 * `dropPages` forgets an unloaded session's pages in whichever RAM tier is current.
 */
export function buildRegistry(
  options: RuntimeOptions,
  dropPages: (identity: PageIdentity) => void,
): SlotRegistry {
  if (options.graphCacheDir) {
    const removed = sweepGraphCache(options.graphCacheDir, options.log);
    if (removed.length > 0)
      options.log.warn('graph-cache', `removed ${removed.length} stale entries: ${removed.join(', ')}`);
  }
  // A test double's runner needs no thread, so no spare either.
  const spare = options.isSpareWorker && !options.createRunner ? new SpareWorker(options.log) : null;
  return new SlotRegistry({
    clock: options.clock,
    log: options.log,
    budgetBytes: options.slotBudgetBytes,
    ...slotBuildOptionsOf(options),
    graphCacheDir: options.graphCacheDir,
    // A model's own choice by its canonical id (`name:variant`) or its bare name; else the
    // provider setting, read live, falling back to cpu (with the reason shown) when it cannot start.
    providerFor: (modelId) =>
      options.modelProviders[modelId] ??
      options.modelProviders[parseModelRef(modelId).name] ?? {
        provider: options.executionProvider,
        isCpuFallbackAllowed: options.executionProvider !== 'cpu',
      },
    createRunner: options.createRunner ?? (() => new RunnerClient(spare?.take())),
    spare,
    prepareModel: prepareGguf,
    dropPages,
  });
}

/**
 * Pages, scheduler and engine loop over `registry`. The scheduler and the loop read `options`
 * itself (seats, K/V budget, prefill chunk, limits), so a setting changed in place reaches them
 * from their next step without a rebuild.
 */
export function buildEngine(
  options: RuntimeOptions,
  catalogue: ModelCatalogue,
  registry: SlotRegistry,
  threads: PromptThreads,
  disk: DiskPages | null = null,
): EngineParts {
  const pages = options.isPaging ? new RamPages(options.pageSize, disk) : null;
  const scheduler = new Scheduler(options, pages, options.pageSize, registry);
  const engine = new EngineLoop({
    clock: options.clock,
    catalogue,
    registry,
    scheduler,
    ramPages: pages,
    pageSize: options.pageSize,
    limits: options,
    promptThreads: threads,
    log: options.log,
  });
  const dispose = () => {
    engine.dispose();
    scheduler.dispose();
    pages?.dispose();
  };
  return { pages, scheduler, engine, dispose };
}

/**
 * The disk tier under the RAM pages, when the process has a place for it and paging is on; its
 * budget setting is read live. A folder that cannot be made private leaves the tier off (said
 * in the log): serving goes on from RAM.
 */
export function buildDiskPages(options: RuntimeOptions): DiskPages | null {
  if (!options.diskPages || !options.isPaging) return null;
  try {
    return new DiskPages({
      ...options.diskPages,
      log: options.log,
      budgetBytes: () => options.diskPagesBudgetBytes,
      wallNow: () => options.clock.wallNow(),
    });
  } catch (error) {
    options.log.warn('pages', `remembered context stays in memory only: ${(error as Error).message}`);
    return null;
  }
}

/**
 * Warms the tokenizer thread for a model as its slot starts loading: the thread's start (seconds
 * from source) then overlaps the load, instead of landing in the `route` of the first long prompt.
 */
export function warmTokenizerOnLoad(registry: SlotRegistry, threads: PromptThreads): void {
  registry.onEvent((event) => {
    const slot =
      event.toStatus === 'prefetching' ? registry.list().find((s) => s.slotId === event.slotId) : undefined;
    if (slot) threads.warm(slot.model);
  });
}

/**
 * Reads a slot's remembered context back into RAM as its load finishes (prefetchPages), so a
 * conversation resumed after a restart is a RAM hit, then assembles the chain used last before
 * the load in the slot's worker (EngineLoop.seatRemembered): its next turn starts from a
 * retained past, as in a process that never stopped, without copying every page first. `parts`
 * is read live (an engine rebuild ends the prefetch). `started` hears each prefetch's outcome
 * promise (settled once the seat is done too).
 */
export function prefetchPagesOnLoad(
  registry: SlotRegistry,
  parts: () => EngineParts | null,
  started: (outcome: Promise<PrefetchOutcome>) => void,
): void {
  registry.onEvent((event) => {
    if (event.fromStatus !== 'prefetching' || event.toStatus !== 'resident') return;
    const slot = registry.list().find((s) => s.slotId === event.slotId);
    const current = parts();
    const identity = slot?.pageIdentity;
    const disk = current?.pages?.disk;
    if (!slot || !identity || !current?.pages || !disk) return;
    const { pages, scheduler } = current;
    const isCurrent = () => slot.pageIdentity === identity && parts()?.pages === pages;
    // Chosen now: once requests run, their own pages are newer than the conversations left open.
    // One: a worker that ran one sequence has one row, and a second seat would take the first's.
    const last = disk.lastChains(identity, 1);
    const prefetched = prefetchPages(pages, identity, {
      freeBytes: () => scheduler.freeKvBytes(),
      isCurrent,
    });
    started(
      prefetched.then(async (outcome) => {
        const chains = last.map((chain) => pages.leadingInRam(identity, chain)).reverse();
        if (isCurrent()) await current.engine.seatRemembered(slot, chains);
        return outcome;
      }),
    );
  });
}

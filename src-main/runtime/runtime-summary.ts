import { isBusySlotStatus } from '../telemetry/residency/schema';
import type { DiskPages, DiskTierState } from './pages/disk-pages';
import type { PageCounters } from './pages/ram-pages';
import type { SlotRegistry } from './slots/slot-registry';
import type { EngineParts } from './runtime-parts';
import type { RuntimeOptions } from './runtime-options';

/** Page cache totals for the slots view. */
export interface PageSummary extends PageCounters {
  /** First prefill chunks that started from a worker's retained past instead of copying pages. */
  numRetainedPastHits: number;
  pageSize: number;
  numPages: number;
  numHeldPages: number;
  bytes: number;
  budgetBytes: number;
  /** The pages kept on disk (remembered across restarts). */
  disk: DiskSummary;
}

/** The disk tier's totals: `none` where this process keeps no pages on disk (no history). */
export interface DiskSummary {
  state: DiskTierState | 'none';
  numPages: number;
  bytes: number;
  budgetBytes: number;
  numWritten: number;
  numRead: number;
  numRefused: number;
  numEvicted: number;
}

/** The disk tier's totals now (all zero without one). */
export function diskSummaryOf(disk: DiskPages | null): DiskSummary {
  if (!disk)
    return {
      state: 'none',
      numPages: 0,
      bytes: 0,
      budgetBytes: 0,
      numWritten: 0,
      numRead: 0,
      numRefused: 0,
      numEvicted: 0,
    };
  const { state, numPages, bytes, budgetBytes } = disk;
  return { state, numPages, bytes, budgetBytes, ...disk.counters };
}

/** The request queue right now: seats in use, requests waiting, and their limits. */
export interface QueueSummary {
  numRunning: number;
  numWaiting: number;
  numSeats: number;
  maxQueue: number;
}

/** The page cache's totals now (all zero with paging off). */
export function pageSummaryOf(parts: EngineParts, options: RuntimeOptions): PageSummary {
  const ramPages = parts.pages;
  return {
    pageSize: options.pageSize,
    numPages: ramPages?.numPages ?? 0,
    numHeldPages: ramPages?.numHeldPages ?? 0,
    bytes: ramPages?.bytes ?? 0,
    budgetBytes: options.kvBudgetBytes,
    ...(ramPages?.counters ?? { numLookups: 0, numLookupTokens: 0, numHitTokens: 0, numEvicted: 0 }),
    numRetainedPastHits: parts.engine.numRetainedPastHits,
    disk: diskSummaryOf(ramPages?.disk ?? null),
  };
}

/** Requests running and waiting now, against the seats of every slot holding a runner (at least one). */
export function queueSummaryOf(
  parts: EngineParts,
  registry: SlotRegistry,
  options: RuntimeOptions,
): QueueSummary {
  const { engine } = parts;
  return {
    numRunning: engine.numRunning,
    numWaiting: engine.numWaiting,
    numSeats: options.maxSeats * Math.max(1, registry.list().filter((s) => s.runner).length),
    maxQueue: options.maxQueue,
  };
}

/** Why the runtime is not idle (requests in flight, a slot loading), or null when it is. */
export function busyReasonOf(parts: EngineParts, registry: SlotRegistry): string | null {
  const { engine } = parts;
  const numBusy = engine.numRunning + engine.numWaiting;
  if (numBusy > 0) return `${numBusy} request(s) are running or waiting; retry when they finish`;
  if (engine.isStepping) return 'a step is still running; retry in a moment';
  const busy = registry.list().find((s) => isBusySlotStatus(s.status));
  if (busy) return `slot ${busy.slotId} is ${busy.status}`;
  return null;
}

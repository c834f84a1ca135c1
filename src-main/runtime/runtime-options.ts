import os from 'node:os';
import type { Clock } from '../telemetry/clock';
import { systemClock } from '../telemetry/clock';
import type { Log } from '../telemetry/log';
import { consoleLog } from '../telemetry/log';
import type { RequestLimits } from './scheduler';
import type { ProviderChoice } from './engine/providers';
import { CPU_PROVIDER } from './engine/providers';
import type { SlotRunner } from './slots';

/** Every runtime setting, with the defaults a local single-user app wants. */
export interface RuntimeOptions {
  bundledModelsDir: string;
  userModelsDir: string | null;
  /** Where content hashes are remembered across restarts (null: rehash every start). */
  revisionCacheFile: string | null;
  /** Tokens per context page. */
  pageSize: number;
  isPaging: boolean;
  /** K/V budget for running sequences plus cached pages, bytes. */
  kvBudgetBytes: number;
  /** Resident slot budget (host copies + sessions), bytes. */
  slotBudgetBytes: number;
  /** Seats (rows of the decode batch) per slot. */
  maxSeats: number;
  /** Prefill chunk in tokens; null runs each prompt in one pass. */
  prefillChunkTokens: number | null;
  numThreads: number;
  /** The execution provider every slot asks for unless `modelProviders` names its model. */
  executionProvider: ProviderChoice;
  /** Per-slot provider by model id (`name:variant`, or a bare name for all its variants). */
  modelProviders: Record<string, ProviderChoice>;
  /** Folder of ONNX Runtime's optimized graphs, keyed by model revision, machine and provider; null: none. */
  graphCacheDir: string | null;
  limits: RequestLimits;
  clock: Clock;
  /** Where failures no caller can hand back go (a slot that would not unload, a worker that would not close). */
  log: Log;
  /** Builds a slot's runner; the default starts a worker thread with ONNX Runtime. */
  createRunner: (() => SlotRunner) | null;
}

/** Defaults: 16-token pages, 256 MB of K/V, 4 seats, 256-token prefill chunks. */
export function defaultRuntimeOptions(
  overrides: Partial<RuntimeOptions> & Pick<RuntimeOptions, 'bundledModelsDir'>,
): RuntimeOptions {
  return {
    userModelsDir: null,
    revisionCacheFile: null,
    pageSize: 16,
    isPaging: true,
    kvBudgetBytes: 256 * 1024 * 1024,
    slotBudgetBytes: Math.floor(os.totalmem() / 2),
    maxSeats: 4,
    prefillChunkTokens: 256,
    // One core stays with the main thread (routing, detokenizing, the UI's IPC): measured on 2
    // cores, sharing it slowed every decode step by a third.
    numThreads: Math.max(1, os.availableParallelism() - 1),
    executionProvider: CPU_PROVIDER,
    modelProviders: {},
    graphCacheDir: null,
    limits: {
      maxPromptTokens: 4096,
      maxOutputTokens: 4096,
      defaultMaxTokens: 256,
      maxQueue: 64,
      defaultDeadlineMs: null,
    },
    clock: systemClock,
    log: consoleLog,
    createRunner: null,
    ...overrides,
  };
}

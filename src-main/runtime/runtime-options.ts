import os from 'node:os';
import type { Clock } from '../telemetry/clock';
import { systemClock } from '../telemetry/clock';
import type { Log } from '../telemetry/log/log';
import { consoleLog } from '../telemetry/log/log';
import { forkChild } from '../threads/fork-child';
import type { ChildStarter } from '../threads/fork-child';
import { DEFAULT_SETTINGS } from './settings/schema';
import type { RuntimeSettings } from './settings/schema';
import type { ProviderChoice } from './slot-worker/providers';
import type { SlotRunner } from './slots/slot';
import { defaultDiscoveryEnvironment } from './model/discovery/places';
import type { CatalogueDiscovery } from './model/catalogue';
import type { DiskPageRows } from './pages/disk-page-rows';
import type { TokenIdRows } from './tokenize/token-id-rows';

/** How this process hosts the runtime: folders, budgets and test seams no user setting covers. */
export interface ProcessOptions {
  bundledModelsDir: string;
  userModelsDir: string | null;
  /** Where content hashes are remembered across restarts (null: rehash every start). */
  revisionCacheFile: string | null;
  isPaging: boolean;
  /**
   * Whether the catalogue also lists the models of Ollama, LM Studio and the Hugging Face cache
   * (read in place; off by default), and the home and environment it looks from.
   */
  discovery: CatalogueDiscovery;
  /** Where GGUF models are converted into, once each (the graph cache's `gguf/`); null: GGUFs are listed, not run. */
  convertedModelsDir: string | null;
  /** Models named by path (a command line's `--model FILE.gguf|FOLDER`), listed beside the folders' own. */
  modelPaths: readonly string[];
  /**
   * Where context pages are kept on disk (a private folder) and their index (the history's
   * `context_pages` table); null: pages live only in RAM.
   */
  diskPages: { dir: string; rows: DiskPageRows } | null;
  /** Where prompts' token ids are remembered across restarts (the history); null: in memory only. */
  tokenIds: TokenIdRows | null;
  /** Resident slot budget (host copies + sessions), bytes. */
  slotBudgetBytes: number;
  /** Per-slot provider by model id (`name:variant`, or a bare name for all its variants). */
  modelProviders: Record<string, ProviderChoice>;
  /** Folder of ONNX Runtime's optimized graphs, keyed by model revision, machine and provider; null: none. */
  graphCacheDir: string | null;
  clock: Clock;
  /** Where failures no caller can hand back go (a slot that would not unload, a worker that would not close). */
  log: Log;
  /**
   * Keep one slot worker started ahead of need, so a cold load skips the thread's start (it is
   * started with the runtime and again whenever the runtime is quiet after one was taken).
   */
  isSpareWorker: boolean;
  /** Builds a slot's runner; the default starts a worker thread with ONNX Runtime. */
  createRunner: (() => SlotRunner) | null;
  /** Starts the provider probe's quiet child process (Node's fork; the desktop app's utility process). */
  startChild: ChildStarter;
}

/**
 * Everything a runtime is built with: the process's own options plus the user's runtime
 * settings (runtime/settings declares each one, its default and its flag).
 */
export type RuntimeOptions = ProcessOptions & RuntimeSettings;

/** The settings' defaults plus this process's: half of RAM for slots, paging on. */
export function defaultRuntimeOptions(
  overrides: Partial<RuntimeOptions> & Pick<RuntimeOptions, 'bundledModelsDir'>,
): RuntimeOptions {
  return {
    userModelsDir: null,
    revisionCacheFile: null,
    discovery: { isEnabled: false, environment: defaultDiscoveryEnvironment() },
    convertedModelsDir: null,
    modelPaths: [],
    isPaging: true,
    diskPages: null,
    tokenIds: null,
    slotBudgetBytes: Math.floor(os.totalmem() / 2),
    modelProviders: {},
    graphCacheDir: null,
    clock: systemClock,
    log: consoleLog,
    isSpareWorker: true,
    createRunner: null,
    startChild: forkChild,
    ...DEFAULT_SETTINGS,
    ...overrides,
  };
}

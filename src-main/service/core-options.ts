import type { DiscoveryEnvironment } from '../runtime/model/discovery/places';
import type { SqliteHistoryOptions } from '../history/history';
import type { ExportFormat } from '../telemetry/trace/export-formats';
import type { ApiStatus, TraceImportResult } from './contract/methods';
import type { ServiceApi } from './contract/service-api';
import type { ImportBudget, ImportBudgetLimits } from './import-budget';
import type { TraceUpload } from './trace-import';
import type { Log } from '../telemetry/log/log';
import type { ChildStarter } from '../threads/fork-child';
import type { OpenAiService } from './openai/types';
import type { ExportRequest, PreparedExport } from './run-export';

/**
 * Asks the user where to save an export (the desktop app's save dialog), suggesting
 * `fileName`; resolves to the chosen path, or null when the user cancelled.
 */
export type SavePathPicker = (fileName: string, format: ExportFormat) => Promise<string | null>;

/** Opens a folder in the system's file manager; resolves to null, or to why it could not. */
export type FolderOpener = (dir: string) => Promise<string | null>;

/** What a host tells the core: where data lives, where the bundled models are, who hosts it. */
export interface CoreOptions {
  /** Folder for the database, the user models folder and caches (created if missing). */
  dataDir: string;
  /** Folder holding the bundled model folders (resources/models). */
  bundledModelsDir: string;
  host: 'electron' | 'headless';
  /**
   * List the models of Ollama, LM Studio and the Hugging Face cache (read in place), over the
   * choice kept from the Settings panel (`--discover-models`); absent: as kept (off by default).
   */
  discoverModels?: boolean;
  /** Where discovery looks from (home folder, variables); absent: this process's. Tests give a fake home. */
  discoveryEnvironment?: DiscoveryEnvironment;
  /** Runtime overrides for tests and benchmarks (page size, seats, budgets…). */
  runtime?: Record<string, unknown>;
  /** A better-sqlite3 addon built for this process's ABI (Electron in development), if not the default. */
  sqliteNativeBinding?: string;
  /** Runs once on the history connection after it opens (tests cap its size to fill the "disk"). */
  onHistoryOpen?: SqliteHistoryOptions['onOpen'];
  /** Builds the host's API switch once the OpenAI service exists; absent: the API is the host's own business. */
  apiServer?: (openai: OpenAiService) => ApiServerControl;
  /** The host's save dialog for `runs.saveExport`; absent: that method answers `unavailable`. */
  pickSavePath?: SavePathPicker;
  /** The trace import budget (tests make it small); absent: TRACE_LIMITS'. */
  importBudget?: ImportBudgetLimits;
  /** The model hub's address (tests: a local server); absent: FF_HUB_URL, else https://huggingface.co. */
  hubUrl?: string;
  /** The host's way to show a folder (the desktop shell); absent: `app.openModelsFolder` answers `unavailable`. */
  openFolder?: FolderOpener;
  /** How the provider probe's quiet child process starts (the desktop app's utility process); absent: Node's fork. */
  startChild?: ChildStarter;
}

/** What the host does to switch the `/v1` API on and off (the desktop app's settings toggle). */
export interface ApiServerControl {
  status(): ApiStatus;
  setEnabled(input: { isEnabled: boolean; port?: number; apiKey?: string | null }): Promise<ApiStatus>;
  close(): Promise<void>;
}

/** The built core: the service, and a clean shutdown (stop accepting, cancel, flush, release). */
export interface Core {
  service: ServiceApi;
  /** The OpenAI-compatible API over the same runtime (hosts mount it at /v1). */
  openai: OpenAiService;
  /** Human-readable facts for the host's startup line (models found, persistence on/off). */
  describe(): string[];
  /** Loads the default model's slot now (cause `prefetch`), so the first message finds it warm; resolves with its id or null. */
  prefetchDefault(): Promise<string | null>;
  /**
   * Checks and prepares an export of a run (null: the live window) for a host to stream: the
   * download route. Throws ServiceFailure `not_found` for an unknown run.
   */
  openExport(request: ExportRequest): PreparedExport;
  /** Imports a trace streamed in chunks, off the serving thread (the upload route; `traces.import` takes text). */
  importTrace(upload: TraceUpload): Promise<TraceImportResult>;
  /** The budget every trace import runs under (its `stats`: imports running and waiting). */
  imports: ImportBudget;
  /** Problems no caller could hand back (`<dataDir>/logs/first-frame.log`, its `path`); hosts log theirs here too. */
  log: Log & { readonly path: string };
  close(): Promise<void>;
}

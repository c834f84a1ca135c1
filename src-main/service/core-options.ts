import type { Writable } from 'node:stream';
import type { ApiStatus, ServiceApi } from './contract';
import type { OpenAiService } from './openai';

/** What a host tells the core: where data lives, where the bundled models are, who hosts it. */
export interface CoreOptions {
  /** Folder for the database, the user models folder and caches (created if missing). */
  dataDir: string;
  /** Folder holding the bundled model folders (resources/models). */
  bundledModelsDir: string;
  host: 'electron' | 'headless';
  /** Runtime overrides for tests and benchmarks (page size, seats, budgets…). */
  runtime?: Record<string, unknown>;
  /** A better-sqlite3 addon built for this process's ABI (Electron in development), if not the default. */
  sqliteNativeBinding?: string;
  /** Builds the host's API switch once the OpenAI service exists; absent: the API is the host's own business. */
  apiServer?: (openai: OpenAiService) => ApiServerControl;
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
  /** Streams a run's timelines (null: the live window) as CSV into `out` with flat memory; resolves to the row count. */
  writeCsv(runId: string | null, out: Writable): Promise<number>;
  close(): Promise<void>;
}

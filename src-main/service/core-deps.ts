import type { Clock } from '../telemetry/clock';
import type { TimelineWindow } from '../telemetry/report/window';
import type { Runtime } from '../runtime/runtime';
import type { RemoteEngine } from '../runtime/remote/remote-engine';
import type { ChatQueries } from '../history/queries/chat-records';
import type { History } from '../history/history';
import type { FolderOpener, SavePathPicker } from './core-options';
import type { EventHub } from './event-hub';
import type { ModelOrigins } from './hub/model-origins';
import type { ImportBudget } from './import-budget';
import type { ProblemLog } from './problem-log';

/** What every handler group works with; built once by createCore. */
export interface CoreDeps {
  runtime: Runtime;
  /** Requests to remote endpoints (`@endpoint/model`) and the endpoints themselves. */
  remote: RemoteEngine;
  history: History;
  /** Chat history: the store's, or an in-memory one while persistence is off. */
  chats: ChatQueries;
  window: TimelineWindow;
  hub: EventHub;
  /** Problems no caller can hand back: the log file, and `app.problem` for the clients. */
  log: ProblemLog;
  clock: Clock;
  dataDir: string;
  host: 'electron' | 'headless';
  version: string;
  /** The host's save dialog, or null where the host has none (headless: downloads instead). */
  pickSavePath: SavePathPicker | null;
  /** The one budget every trace import runs under. */
  imports: ImportBudget;
  /** Where each model downloaded from the hub came from (the lists say it). */
  origins: ModelOrigins;
  /** The host's folder opener, or null where the host has none (headless: the path is copied instead). */
  openFolder: FolderOpener | null;
}

import path from 'node:path';
import type { FileLog } from '../telemetry/log/file-log';
import type { Log, LogEntry } from '../telemetry/log/log';
import { openFileLog } from '../telemetry/log/file-log';
import type { EventHub } from './event-hub';

/** The core's log: `<dataDir>/logs/first-frame.log`, and each entry pushed to clients as `app.problem`. */
export interface ProblemLog extends Log {
  readonly path: string;
  /** The latest problems, oldest first (app.status). */
  recent(): LogEntry[];
  /** The file alone, for the event hub's own failures (pushing those could loop). */
  readonly file: FileLog;
}

/** Opens the log under the data folder; `connect` later tells it the hub to push problems to. */
export function openProblemLog(dataDir: string): ProblemLog & { connect(hub: EventHub): void } {
  const file = openFileLog(path.join(dataDir, 'logs'));
  let hub: EventHub | null = null;
  return {
    path: file.path,
    file,
    recent: () => file.recent(),
    connect: (to) => void (hub = to),
    warn(topic, message) {
      file.warn(topic, message);
      hub?.emit('app.problem', file.recent().at(-1)!);
    },
    debug: (topic, message) => file.debug(topic, message),
  };
}

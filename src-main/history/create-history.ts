import type { Log } from '../telemetry/log/log';
import { consoleLog, reasonOf } from '../telemetry/log/log';
import { HistoryUnavailable, toUnavailable } from './errors';
import { nullHistory } from './null-history';
import type { SqliteHistoryOptions, History } from './history';
import { openSqliteHistory } from './history';

/** How often retention runs while the app is up (ms). */
const PRUNE_EVERY_MS = 3_600_000;

/** Options for createHistory. */
export interface CreateHistoryOptions extends SqliteHistoryOptions {
  /** The database file, or null to run with persistence off by choice. */
  path: string | null;
  /** Prune by the retention policy at open and hourly (default true). */
  isPruning?: boolean;
}

/**
 * The app's store: SQLite at `path` when it opens, otherwise a store with persistence off
 * whose `unavailable` says why (corrupt file, read-only file or folder, locked, newer schema).
 * Never throws for an unusable database: the app keeps serving and can say so.
 */
export function createHistory(options: CreateHistoryOptions): History {
  if (options.path === null)
    return nullHistory(new HistoryUnavailable('cannot-open', '(none)', 'persistence turned off'));
  let history: History;
  try {
    history = openSqliteHistory(options.path, options);
  } catch (error) {
    return nullHistory(toUnavailable(error, options.path));
  }
  return options.isPruning === false ? history : withPruning(history, options.log ?? consoleLog);
}

function withPruning(history: History, log: Log): History {
  let numFailed = 0;
  const pruneQuietly = (): void => {
    try {
      history.retention.prune();
      numFailed = 0;
    } catch (error) {
      // Retention is housekeeping: serving goes on and the prune is retried next hour, but a
      // prune that keeps failing lets history grow without bound, so every failure is told.
      numFailed += 1;
      log.warn(
        'store',
        `pruning old history failed (${numFailed} in a row; retried hourly): ${reasonOf(error)}`,
      );
    }
  };
  pruneQuietly();
  const timer = setInterval(pruneQuietly, PRUNE_EVERY_MS);
  timer.unref();
  const close = history.close;
  return Object.assign(history, {
    close: () => {
      clearInterval(timer);
      close();
    },
  });
}

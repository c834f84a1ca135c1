import type { Log } from '../telemetry/log/log';
import { consoleLog, reasonOf } from '../telemetry/log/log';
import { StoreUnavailable, toUnavailable } from './errors';
import { nullStore } from './null-store';
import type { SqliteStoreOptions, Store } from './store';
import { openSqliteStore } from './store';

/** How often retention runs while the app is up (ms). */
const PRUNE_EVERY_MS = 3_600_000;

/** Options for createStore. */
export interface CreateStoreOptions extends SqliteStoreOptions {
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
export function createStore(options: CreateStoreOptions): Store {
  if (options.path === null)
    return nullStore(new StoreUnavailable('cannot-open', '(none)', 'persistence turned off'));
  let store: Store;
  try {
    store = openSqliteStore(options.path, options);
  } catch (error) {
    return nullStore(toUnavailable(error, options.path));
  }
  return options.isPruning === false ? store : withPruning(store, options.log ?? consoleLog);
}

function withPruning(store: Store, log: Log): Store {
  let numFailed = 0;
  const pruneQuietly = (): void => {
    try {
      store.retention.prune();
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
  const close = store.close;
  return Object.assign(store, {
    close: () => {
      clearInterval(timer);
      close();
    },
  });
}

import type Database from 'better-sqlite3';
import type { Log } from '../../telemetry/log/log';

/**
 * Named JSON values in the `settings` table (the app's runtime settings, the retention policy).
 * The store keeps them as given; the owner of each key validates what it reads back.
 */
export interface PreferenceQueries {
  /** The stored value, or null when the key was never written or its JSON does not parse. */
  read(key: string): unknown;
  write(key: string, value: unknown): void;
}

/** PreferenceQueries over an open history database; `log` hears of a value that no longer parses. */
export function preferenceQueries(db: Database.Database, log: Log): PreferenceQueries {
  const read = db.prepare('SELECT value_json FROM settings WHERE key = ?');
  const write = db.prepare(
    'INSERT INTO settings (key, value_json) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value_json = excluded.value_json',
  );
  return {
    read: (key) => {
      const row = read.get(key) as { value_json: string } | undefined;
      if (!row) return null;
      try {
        return JSON.parse(row.value_json) as unknown;
      } catch (error) {
        // A hand-edited or truncated value reads as never written (the owner falls back to
        // defaults); the log says so, since the user's choice is being ignored.
        log.warn(
          'store',
          `setting ${key} is not JSON (${(error as Error).message}); its defaults apply until it is saved again`,
        );
        return null;
      }
    },
    write: (key, value) => void write.run(key, JSON.stringify(value)),
  };
}

import Database from 'better-sqlite3';

/** Rows the host stored: runtime timelines and imported ones. */
export function countStored(dbPath: string): { numRuntime: number; numImported: number } {
  const db = new Database(dbPath, { readonly: true });
  try {
    const count = (source: string) =>
      (db.prepare('SELECT count(*) AS n FROM requests WHERE source = ?').get(source) as { n: number }).n;
    return { numRuntime: count('runtime'), numImported: count('import') };
  } finally {
    db.close();
  }
}

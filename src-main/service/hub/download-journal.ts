// The downloads that have not finished, kept in `<data>/hub-downloads.json` so that after the
// app closes mid-download the next start lists them with Resume: their parts are still there,
// and a download of the same file at the same commit picks up where it stopped (HTTP Range).

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

const EntrySchema = z.object({
  repo: z.string().max(200),
  revision: z.string().max(100),
  filePath: z.string().max(1000),
  modelName: z.string().max(1000),
  bytesTotal: z.number().int().min(0),
  startedAtWallMs: z.number(),
});
/** One download under way (or cut short by the app closing). */
export type JournalEntry = z.infer<typeof EntrySchema>;

/** The journal of a data folder; every change rewrites it whole (a line per unfinished download). */
export class DownloadJournal {
  private readonly file: string;
  private entries: JournalEntry[];

  constructor(dataDir: string) {
    this.file = path.join(dataDir, 'hub-downloads.json');
    this.entries = readEntries(this.file);
  }

  /** The downloads that had not finished when the app last closed (or now). */
  list(): readonly JournalEntry[] {
    return this.entries;
  }

  /** Records a download as under way (replacing an earlier one of the same model). */
  add(entry: JournalEntry): void {
    this.entries = [...this.entries.filter((e) => e.modelName !== entry.modelName), entry];
    this.write();
  }

  /** Forgets a model's download: it finished, was cancelled, or its parts are gone. */
  remove(modelName: string): void {
    this.entries = this.entries.filter((e) => e.modelName !== modelName);
    this.write();
  }

  private write(): void {
    try {
      writeFileSync(this.file, JSON.stringify(this.entries, null, 1));
    } catch (error) {
      // The download itself goes on; only a Resume after a restart is lost.
      console.warn(`could not record the unfinished downloads: ${(error as Error).message}`);
    }
  }
}

function readEntries(file: string): JournalEntry[] {
  try {
    const parsed = z.array(EntrySchema).safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : [];
  } catch {
    return []; // no download was ever left unfinished (or the file is unreadable): nothing to resume
  }
}

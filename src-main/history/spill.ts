import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import type { Timeline } from '../telemetry/timeline/schema';
import type { SlotEventRecord } from '../telemetry/residency/schema';
import type { AnswerPatch, NewConversation, NewMessage } from './queries/chat-records';
import type { ClientTtftUpdate, PendingRun, WriteBatch } from './writer/batch';
import { isRetryableWriteError } from './errors';
import { PRIVATE_FILE_MODE, privateSharedFolder, whyNotOwnFile } from '../private-files';

/**
 * What shutdown could not write (the disk refused it) is kept in a spill file instead of being
 * dropped: one JSON line per item after a header, written whole (a `.partial` renamed into
 * place, 0600) beside the database, or in this user's private temp folder when even that
 * fails (never one another account made). The next start stores every spill in one transaction together with a marker row naming it, then deletes
 * the file, so an item is stored exactly once even if the delete fails or the app dies between.
 */

/**
 * A chat write that was waiting for the disk (pending-chats.ts), in a form a file can hold; its
 * input carries the id and time it was given when it was made, so replaying it makes the same row.
 */
export type SpilledChatWrite =
  | { kind: 'conversation'; input: NewConversation }
  | { kind: 'message'; input: NewMessage }
  | { kind: 'answerUpdate'; messageId: string; patch: AnswerPatch }
  | {
      kind: 'chatUpdate';
      conversationId: string;
      patch: { title?: string; leafMessageId?: string | null; settings?: unknown };
    };

/** Everything one shutdown could not write, in write order within each kind. */
export interface SpillContent {
  batch: WriteBatch;
  chats: SpilledChatWrite[];
}

type SpillLine =
  | { kind: 'run'; value: PendingRun }
  | { kind: 'timeline'; value: Timeline }
  | { kind: 'slotEvent'; value: SlotEventRecord }
  | { kind: 'clientTtft'; value: ClientTtftUpdate }
  | SpilledChatWrite;

const FORMAT = 'first-frame.spill.v1';

/** Items a spill holds. */
export function spillSize(content: SpillContent): number {
  const { runs, timelines, slotEvents, clientTtfts } = content.batch;
  return runs.length + timelines.length + slotEvents.length + clientTtfts.length + content.chats.length;
}

/** Writes a spill for the database at `dbPath`; resolves where it went, or why it could not be kept. */
export function writeSpill(dbPath: string, content: SpillContent): { path: string } | { error: string } {
  const spillId = randomUUID();
  const text = [
    JSON.stringify({ format: FORMAT, spillId }),
    ...linesOf(content).map((l) => JSON.stringify(l)),
  ]
    .join('\n')
    .concat('\n');
  const problems: string[] = [];
  for (const place of placesOf(dbPath)) {
    const folder = place.isShared ? privateSharedFolder(place.folder) : { dir: place.folder };
    if ('error' in folder) {
      problems.push(`${place.folder}: ${folder.error}`);
      continue;
    }
    const file = path.join(place.folder, `${place.prefix}${Date.now()}-${spillId}.jsonl`);
    try {
      // `wx`: never through a file or link someone else left under that name.
      writeFileSync(`${file}.partial`, text, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
      renameSync(`${file}.partial`, file);
      return { path: file };
    } catch (error) {
      rmSync(`${file}.partial`, { force: true });
      problems.push(`${place.folder}: ${(error as Error).message}`);
    }
  }
  return { error: problems.join('; ') };
}

/**
 * What one pass over the spills left for a database did: items stored, spills the database
 * refused for now (busy, full: worth another try), and spills refused for good because this
 * app cannot have written them (another account's file or folder) or cannot read them.
 */
export interface SpillReplay {
  numStored: number;
  /** Each spill still waiting for the database, and why. */
  waiting: SpillProblem[];
  /** Each spill (or spill folder) not stored and not tried again, and why. */
  refused: SpillProblem[];
}

/** A spill file or folder and why it is not stored (yet). */
export interface SpillProblem {
  file: string;
  reason: string;
}

/**
 * Stores every spill left for `dbPath` (oldest first), each in one transaction with its marker,
 * through `apply`; deletes each once stored. A spill the database refuses (still full, busy)
 * stays to be tried again. A spill is read only when it is this app's own: a plain file owned by
 * this user that no other account can change (and, in the shared temp folder, a folder that is
 * ours and closed). `skipped` names files refused before, so a retry does not say them again.
 */
export function replaySpills(
  db: Database.Database,
  dbPath: string,
  apply: (content: SpillContent) => void,
  skipped: ReadonlySet<string> = new Set(),
): SpillReplay {
  const isReplayed = db.prepare('SELECT 1 FROM settings WHERE key = ?').pluck();
  const mark = db.prepare('INSERT INTO settings (key, value_json) VALUES (?, ?)');
  const { files, refused } = spillsOf(dbPath);
  const result: SpillReplay = {
    numStored: 0,
    waiting: [],
    refused: refused.filter((r) => !skipped.has(r.file)),
  };
  for (const file of files.filter((f) => !skipped.has(f))) {
    try {
      const why = whyNotOwnFile(file);
      if (why !== null) {
        result.refused.push({ file, reason: why });
        continue;
      }
      const { spillId, content } = readSpill(file);
      const key = `spill:${spillId}`;
      if (!isReplayed.get(key)) {
        db.transaction(() => {
          apply(content);
          mark.run(key, JSON.stringify({ atWallMs: Date.now(), numItems: spillSize(content) }));
        })();
        result.numStored += spillSize(content);
      }
      rmSync(file, { force: true });
    } catch (error) {
      const problem = { file, reason: (error as Error).message };
      if (isRetryableWriteError(error)) result.waiting.push(problem);
      else result.refused.push(problem);
    }
  }
  return result;
}

/** Where a database's spills go, in order: beside it, then the user's private temp folder. */
interface SpillPlace {
  folder: string;
  /** What every spill file name of this database starts with there. */
  prefix: string;
  /** A folder every account can reach (the temp folder): checked before it is trusted. */
  isShared: boolean;
}

function placesOf(dbPath: string): SpillPlace[] {
  const base = `${path.basename(dbPath)}.spill-`;
  // One folder per user, checked like tmux's /tmp/tmux-UID: a name anyone can guess, so it is
  // trusted only when it is ours and closed to others. Each database has its own file prefix.
  const key = createHash('sha256').update(path.resolve(dbPath)).digest('hex').slice(0, 16);
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  return [
    { folder: path.dirname(dbPath), prefix: base, isShared: false },
    { folder: path.join(tmpdir(), `first-frame-${uid}`), prefix: `${key}.${base}`, isShared: true },
  ];
}

/** The spill files left for `dbPath`, oldest first, and the places refused because they are not ours. */
function spillsOf(dbPath: string): { files: string[]; refused: SpillProblem[] } {
  const refused: SpillProblem[] = [];
  const found = placesOf(dbPath).flatMap((place) => {
    if (!existsSync(place.folder)) return [];
    if (place.isShared) {
      const folder = privateSharedFolder(place.folder);
      if ('error' in folder) {
        refused.push({ file: place.folder, reason: folder.error });
        return [];
      }
    }
    try {
      return readdirSync(place.folder)
        .filter((name) => name.startsWith(place.prefix) && name.endsWith('.jsonl'))
        .map((name) => ({ name: name.slice(place.prefix.length), file: path.join(place.folder, name) }));
    } catch (error) {
      refused.push({ file: place.folder, reason: (error as Error).message });
      return [];
    }
  });
  const files = found.sort((a, b) => a.name.localeCompare(b.name)).map((f) => f.file);
  return { files, refused };
}

function linesOf({ batch, chats }: SpillContent): SpillLine[] {
  return [
    ...batch.runs.map((value) => ({ kind: 'run' as const, value })),
    ...batch.timelines.map((value) => ({ kind: 'timeline' as const, value })),
    ...batch.slotEvents.map((value) => ({ kind: 'slotEvent' as const, value })),
    ...batch.clientTtfts.map((value) => ({ kind: 'clientTtft' as const, value })),
    ...chats,
  ];
}

function readSpill(file: string): { spillId: string; content: SpillContent } {
  const [head, ...rest] = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  const header = JSON.parse(head ?? '{}') as { format?: string; spillId?: string };
  if (header.format !== FORMAT || !header.spillId) throw new Error(`not a ${FORMAT} file`);
  const content: SpillContent = {
    batch: { runs: [], timelines: [], slotEvents: [], clientTtfts: [] },
    chats: [],
  };
  for (const text of rest) {
    const line = JSON.parse(text) as SpillLine;
    if (line.kind === 'run') content.batch.runs.push(line.value);
    else if (line.kind === 'timeline') content.batch.timelines.push(line.value);
    else if (line.kind === 'slotEvent') content.batch.slotEvents.push(line.value);
    else if (line.kind === 'clientTtft') content.batch.clientTtfts.push(line.value);
    else content.chats.push(line);
  }
  return { spillId: header.spillId, content };
}

import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import type { Timeline } from '../telemetry/timeline';
import type { SlotEventRecord } from '../telemetry/residency';
import type { NewConversation, NewMessage } from './queries/chats';
import type { ClientTtftUpdate, PendingRun, WriteBatch } from './writer/batch';

/**
 * What shutdown could not write (the disk refused it) is kept in a spill file instead of being
 * dropped: one JSON line per item after a header, written whole (a `.partial` renamed into
 * place) beside the database, or in the temp folder when even that fails. The next start
 * stores every spill in one transaction together with a marker row naming it, then deletes
 * the file, so an item is stored exactly once even if the delete fails or the app dies between.
 */

/**
 * A chat write that was waiting for the disk (pending-chats.ts), in a form a file can hold; its
 * input carries the id and time it was given when it was made, so replaying it makes the same row.
 */
export type SpilledChatWrite =
  | { kind: 'conversation'; input: NewConversation }
  | { kind: 'message'; input: NewMessage }
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
  const name = `${path.basename(dbPath)}.spill-${Date.now()}-${spillId}.jsonl`;
  const problems: string[] = [];
  for (const folder of [path.dirname(dbPath), tempFolderOf(dbPath)]) {
    const file = path.join(folder, name);
    try {
      if (folder !== path.dirname(dbPath)) mkdirSync(folder, { recursive: true });
      writeFileSync(`${file}.partial`, text);
      renameSync(`${file}.partial`, file);
      return { path: file };
    } catch (error) {
      rmSync(`${file}.partial`, { force: true });
      problems.push(`${folder}: ${(error as Error).message}`);
    }
  }
  return { error: problems.join('; ') };
}

/**
 * Stores every spill left for `dbPath` (oldest first), each in one transaction with its marker,
 * through `apply`; deletes each once stored. A spill the database refuses (still full, busy)
 * stays for the next start. Returns the items stored and the problems met, for the log.
 */
export function replaySpills(
  db: Database.Database,
  dbPath: string,
  apply: (content: SpillContent) => void,
): { numStored: number; problems: string[] } {
  const isReplayed = db.prepare('SELECT 1 FROM settings WHERE key = ?').pluck();
  const mark = db.prepare('INSERT INTO settings (key, value_json) VALUES (?, ?)');
  let numStored = 0;
  const problems: string[] = [];
  for (const file of spillsOf(dbPath)) {
    try {
      const { spillId, content } = readSpill(file);
      const key = `spill:${spillId}`;
      if (!isReplayed.get(key)) {
        db.transaction(() => {
          apply(content);
          mark.run(key, JSON.stringify({ atWallMs: Date.now(), numItems: spillSize(content) }));
        })();
        numStored += spillSize(content);
      }
      rmSync(file, { force: true });
    } catch (error) {
      problems.push(`${file}: ${(error as Error).message}`);
    }
  }
  return { numStored, problems };
}

/** The spill files left for `dbPath`, beside it and in the temp folder, oldest first. */
function spillsOf(dbPath: string): string[] {
  const prefix = `${path.basename(dbPath)}.spill-`;
  const found = [path.dirname(dbPath), tempFolderOf(dbPath)].flatMap((folder) => {
    try {
      return readdirSync(folder)
        .filter((name) => name.startsWith(prefix) && name.endsWith('.jsonl'))
        .map((name) => ({ name, file: path.join(folder, name) }));
    } catch {
      return []; // no such folder: nothing was spilled there
    }
  });
  return found.sort((a, b) => a.name.localeCompare(b.name)).map((f) => f.file);
}

/** The temp folder a database's spills fall back to: one per database path. */
function tempFolderOf(dbPath: string): string {
  const key = createHash('sha256').update(path.resolve(dbPath)).digest('hex').slice(0, 16);
  return path.join(tmpdir(), `first-frame-spill-${key}`);
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

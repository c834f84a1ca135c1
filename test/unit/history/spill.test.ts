import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteHistory } from '../../../src-main/history/history';
import type { SpillContent } from '../../../src-main/history/spill';
import { writeSpill } from '../../../src-main/history/spill';
import { everyFinishTimelines } from '../telemetry/trace/every-finish';
import { runAs, secondAccount } from '../../support/second-account';
import { ManualFlushTimer } from './manual-flush-timer';

const EMPTY_BATCH = { runs: [], timelines: [], slotEvents: [], clientTtfts: [] };

/** What a shutdown kept: two timelines, a conversation with one message, and a rename of it. */
function keptAtShutdown(): SpillContent {
  const conversationId = 'c-spilled';
  return {
    batch: { ...EMPTY_BATCH, timelines: everyFinishTimelines(null).slice(0, 2) },
    chats: [
      { kind: 'conversation', input: { title: 'kept', conversationId, atWallMs: 1_000 } },
      {
        kind: 'message',
        input: { conversationId, messageId: 'm-1', role: 'user', content: 'x\n"y"', atWallMs: 1_001 },
      },
      { kind: 'chatUpdate', conversationId, patch: { title: 'renamed while the disk was full' } },
    ],
  };
}

describe('spill files: what the disk refused at shutdown', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const open = (file: string, options: Parameters<typeof openSqliteHistory>[1] = {}) => {
    const warnings: string[] = [];
    const history = openSqliteHistory(file, {
      ...options,
      log: { warn: (_topic, message) => void warnings.push(message) },
    });
    return { history, warnings };
  };

  it('are stored at the next start exactly once, even if the file comes back after its delete', () => {
    dir = mkdtempSync(join(tmpdir(), 'ff-spill-'));
    const file = join(dir, 'history.sqlite');
    open(file).history.close();
    const kept = writeSpill(file, keptAtShutdown());
    if (!('path' in kept)) throw new Error(kept.error);
    expect(kept.path.startsWith(dir)).toBe(true);
    copyFileSync(kept.path, `${kept.path}.copy`);

    const first = open(file);
    expect(first.warnings).toEqual(['history: stored 5 item(s) the disk refused at the last shutdown']);
    expect(existsSync(kept.path)).toBe(false);
    expect(first.history.chats.getConversation('c-spilled')?.title).toBe('renamed while the disk was full');
    expect(first.history.chats.messages('c-spilled').map((m) => m.content)).toEqual(['x\n"y"']);
    expect(first.history.timelines.recent(100)).toHaveLength(2);
    first.history.close();

    copyFileSync(`${kept.path}.copy`, kept.path);
    rmSync(`${kept.path}.copy`);
    const second = open(file);
    expect(second.warnings).toEqual([]);
    expect(existsSync(kept.path)).toBe(false);
    expect(second.history.timelines.recent(100)).toHaveLength(2);
    expect(second.history.chats.messages('c-spilled')).toHaveLength(1);
    second.history.close();
  });

  it('fall back to the temp folder when the database folder cannot take them, and are found there', () => {
    dir = mkdtempSync(join(tmpdir(), 'ff-spill-'));
    // The folder is not there (moved, unmounted): nothing can be written beside the database.
    const file = join(dir, 'gone', 'history.sqlite');
    const kept = writeSpill(file, keptAtShutdown());
    if (!('path' in kept)) throw new Error(kept.error);
    expect(kept.path.startsWith(join(tmpdir(), `first-frame-${process.getuid?.() ?? 'user'}`))).toBe(true);
    const reopened = open(file);
    expect(reopened.warnings).toEqual(['history: stored 5 item(s) the disk refused at the last shutdown']);
    expect(existsSync(kept.path)).toBe(false);
    expect(reopened.history.timelines.recent(100)).toHaveLength(2);
    reopened.history.close();
  });

  it('are written 0600, and one that another account could change is refused and said once', () => {
    dir = mkdtempSync(join(tmpdir(), 'ff-spill-'));
    const file = join(dir, 'history.sqlite');
    open(file).history.close();
    const kept = writeSpill(file, keptAtShutdown());
    if (!('path' in kept)) throw new Error(kept.error);
    expect(statSync(kept.path).mode & 0o777).toBe(0o600);
    chmodSync(kept.path, 0o666);
    const reopened = open(file);
    expect(reopened.warnings).toEqual([
      `history: the spill ${kept.path} is not stored and not read (other accounts may change it)`,
    ]);
    expect(reopened.history.chats.getConversation('c-spilled')).toBeNull();
    reopened.history.close();
  });

  it('left while the disk is still full are kept, and stored once space comes back in the same run', () => {
    dir = mkdtempSync(join(tmpdir(), 'ff-spill-'));
    const file = join(dir, 'history.sqlite');
    open(file).history.close();
    const content = keptAtShutdown();
    // Longer than the free room left in the pages a fresh database has.
    const long = {
      conversationId: 'c-spilled',
      messageId: 'm-2',
      role: 'assistant' as const,
      content: 'x'.repeat(20_000),
    };
    content.chats.push({ kind: 'message', input: { ...long, atWallMs: 1_002 } });
    const kept = writeSpill(file, content);
    if (!('path' in kept)) throw new Error(kept.error);
    const timer = new ManualFlushTimer();
    let db: Database.Database | null = null;
    const full = open(file, {
      writer: { flushTimer: timer },
      // SQLite's own size cap gives the real SQLITE_FULL a full disk gives: not one page more.
      onOpen: (opened) => {
        db = opened;
        opened.pragma(`max_page_count = ${opened.pragma('page_count', { simple: true }) as number}`);
      },
    });
    expect(full.warnings).toEqual([
      expect.stringMatching(
        /^history: a spill of an earlier shutdown is not stored yet \(.*full.*\); tried again every 5 s$/,
      ),
    ]);
    timer.runOne(); // still full: tried again, not said again
    expect(full.warnings).toHaveLength(1);
    expect(existsSync(kept.path)).toBe(true);

    db!.pragma('max_page_count = 1000000');
    timer.runAll();
    expect(full.warnings.slice(1)).toEqual([
      'history: stored 6 item(s) the disk refused at the last shutdown',
    ]);
    expect(existsSync(kept.path)).toBe(false);
    expect(full.history.chats.getConversation('c-spilled')?.title).toBe('renamed while the disk was full');
    full.history.close();
  });

  const account = secondAccount();
  it.skipIf(account === null)(
    'planted by another account in the temp folder it made for this user is refused, said once, never stored (needs root to make the account)',
    () => {
      dir = mkdtempSync(join(tmpdir(), 'ff-spill-'));
      // A temp folder every account shares, as /tmp is (sticky, open to all).
      const shared = join(dir, 'tmp');
      const was = process.env.TMPDIR;
      try {
        process.env.TMPDIR = shared;
        chmodSync(dir, 0o755);
        mkdirSync(shared, { mode: 0o1777 });
        chmodSync(shared, 0o1777);
        const file = join(dir, 'data', 'history.sqlite');
        const forged = join(dir, 'forged.sqlite');
        open(forged).history.close();
        const made = writeSpill(forged, {
          batch: { runs: [], timelines: [], slotEvents: [], clientTtfts: [] },
          chats: [
            {
              kind: 'conversation',
              input: { title: 'FORGED by another local user', conversationId: 'c-forged' },
            },
          ],
        });
        if (!('path' in made)) throw new Error(made.error);
        const text = readFileSync(made.path, 'utf8');
        rmSync(made.path);
        // The other account guesses this user's folder and this database's file name.
        const folder = join(shared, `first-frame-${process.getuid!()}`);
        const key = createHash('sha256').update(resolve(file)).digest('hex').slice(0, 16);
        const planted = join(folder, `${key}.${basename(file)}.spill-1-planted.jsonl`);
        // And the folder older versions fell back to, which it could make first.
        const legacy = join(shared, `first-frame-spill-${key}`);
        const ran = runAs(
          account!,
          `const fs = require('node:fs');
           const [folder, planted, legacy, text] = process.argv.slice(1);
           for (const [dir, file] of [[folder, planted], [legacy, legacy + '/history.sqlite.spill-1-planted.jsonl']]) {
             fs.mkdirSync(dir, { mode: 0o777 }); fs.chmodSync(dir, 0o777);
             fs.writeFileSync(file, text, { mode: 0o666 });
           }`,
          [folder, planted, legacy, text],
        );
        expect(ran.output).toBe('');
        expect(ran.status).toBe(0);

        const first = open(file);
        expect(first.warnings).toEqual([
          `history: the spill ${folder} is not stored and not read (it is not this user's private folder: it belongs to another account (uid ${account!.uid}))`,
        ]);
        expect(first.history.chats.getConversation('c-forged')).toBeNull();
        first.history.close();
        expect(existsSync(planted)).toBe(true);
      } finally {
        if (was === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = was;
      }
    },
  );
});

import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createTestCore } from '../../support/core';
import { sendTurn } from '../../support/chat-turn';

describe('a disk that is full at shutdown', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ff-full-at-exit-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const historyFile = join(dataDir, 'history.sqlite');
  const spillsBeside = () => readdirSync(dataDir).filter((name) => name.includes('.spill-'));

  it('keeps what it could not write in a spill file beside the database and says so; the next start stores it once', async () => {
    let db: Database.Database | null = null;
    const core = await createTestCore(dataDir, { onHistoryOpen: (opened) => (db = opened) });
    const created = await core.service.call('chat.createConversation', { title: 'before the disk filled' });
    if (!created.ok) throw new Error(created.error.message);
    const { conversationId } = created.value;
    await sendTurn(core, conversationId, 'The first turn, stored.');
    const numStored = () => (db!.prepare('SELECT count(*) AS n FROM requests').get() as { n: number }).n;
    await vi.waitFor(() => expect(numStored()).toBe(1));
    // SQLite's own size cap gives the real SQLITE_FULL a full disk gives: not one page more.
    db!.pragma(`max_page_count = ${db!.pragma('page_count', { simple: true }) as number}`);
    const turns = [];
    for (let i = 0; i < 4; i++)
      turns.push(await sendTurn(core, conversationId, `Turn ${i} while the disk is full.`));
    await vi.waitFor(async () => {
      const status = await core.service.call('app.status', {});
      expect(status.ok && status.value.historyState).toBe('full');
    });
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      await core.close();
      const said = stderr.mock.calls.map((args) => String(args[0])).join('\n');
      expect(said).toMatch(
        /history: the disk refused \d+ item\(s\) at shutdown \([1-9]\d* timeline\(s\), \d+ chat write\(s\).*kept in .*history\.sqlite\.spill-.*\.jsonl; they are stored at the next start/,
      );
    } finally {
      stderr.mockRestore();
    }
    expect(spillsBeside()).toHaveLength(1);

    const reopened = await createTestCore(dataDir);
    const log = await reopened.service.call('app.status', {});
    expect(log.ok && log.value.recentProblems.map((p) => p.message).join('\n')).toMatch(
      /stored \d+ item\(s\) the disk refused at the last shutdown/,
    );
    const shown = await reopened.service.call('chat.getConversation', { conversationId });
    expect(shown.ok && shown.value.messages.length).toBe(10);
    await reopened.close();
    expect(spillsBeside()).toEqual([]);

    const check = new Database(historyFile, { readonly: true });
    const count = (sql: string, ...params: unknown[]) =>
      (check.prepare(sql).get(...params) as { n: number }).n;
    for (const turn of turns)
      expect(count('SELECT count(*) AS n FROM requests WHERE request_id = ?', turn.requestId)).toBe(1);
    expect(count('SELECT count(*) AS n FROM messages WHERE conversation_id = ?', conversationId)).toBe(10);
    check.close();

    // A third start finds nothing to replay and stores nothing twice.
    const third = await createTestCore(dataDir);
    await third.close();
    const again = new Database(historyFile, { readonly: true });
    expect((again.prepare('SELECT count(*) AS n FROM requests').get() as { n: number }).n).toBe(5);
    again.close();
    expect(existsSync(historyFile)).toBe(true);
  });
});

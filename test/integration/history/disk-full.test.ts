import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Core } from '../../../src-main/service/core-options';
import { createTestCore } from '../../support/core';
import { sendTurn } from '../../support/chat-turn';

describe('a full disk', () => {
  let dataDir: string;
  let core: Core;
  let db: Database.Database;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ff-full-'));
    core = await createTestCore(dataDir, { onHistoryOpen: (opened) => (db = opened) });
  });
  afterAll(async () => {
    await core.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps the chat working in memory, says "degraded: full", and writes everything once there is room', async () => {
    // SQLite's own size cap gives the real SQLITE_FULL a full disk gives: not one page more.
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
    const created = await core.service.call('chat.createConversation', { title: 'full disk' });
    if (!created.ok) throw new Error(created.error.message);
    const { conversationId } = created.value;
    const turns = [];
    for (let i = 0; i < 6; i++) turns.push(await sendTurn(core, conversationId, `Turn ${i}: tell me more.`));
    await vi.waitFor(async () => {
      const status = await core.service.call('app.status', {});
      expect(status.ok && status.value).toMatchObject({
        historyState: 'full',
        persistenceReason: expect.stringMatching(/^degraded: full: the disk .* is full/),
      });
    });
    const shown = await core.service.call('chat.getConversation', { conversationId });
    expect(shown.ok && shown.value.messages.length).toBe(12);

    db.pragma('max_page_count = 1073741823');
    await vi.waitFor(
      async () => {
        const status = await core.service.call('app.status', {});
        expect(status.ok && status.value.historyState).toBe('on');
      },
      { timeout: 20_000, interval: 200 },
    );
    const count = (sql: string, ...params: unknown[]) => (db.prepare(sql).get(...params) as { n: number }).n;
    expect(count('SELECT count(*) AS n FROM messages WHERE conversation_id = ?', conversationId)).toBe(12);
    for (const turn of turns)
      expect(count('SELECT count(*) AS n FROM requests WHERE request_id = ?', turn.requestId)).toBe(1);
  });
});

import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Core } from '../../../src-main/service/core-options';
import { openSqliteHistory } from '../../../src-main/history/history';
import { everyFinishTimelines } from '../../unit/telemetry/trace/every-finish';
import { createTestCore } from '../../support/core';
import { sendTurn } from '../../support/chat-turn';

const PAGE_BYTES = 4096;

/** A history of 2,400 stored timelines (a few hundred pages), closed; returns its path. */
function historyWithRows(dataDir: string): string {
  const file = join(dataDir, 'history.sqlite');
  const history = openSqliteHistory(file);
  const runId = history.runs.create({ name: 'before the damage' }).runId;
  for (let i = 0; i < 300; i++)
    for (const timeline of everyFinishTimelines(runId))
      history.writer.enqueue({ ...timeline, requestId: `${timeline.requestId}-${i}` });
  history.writer.flush();
  history.close();
  return file;
}

/** Overwrites `numBytes` of the page in the middle of the file (its header and cell pointers). */
function damageMiddlePage(file: string, numBytes: number): void {
  const middle = Math.floor(statSync(file).size / PAGE_BYTES / 2);
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.alloc(numBytes, 0xa5), 0, numBytes, middle * PAGE_BYTES + 8);
  closeSync(fd);
}

describe('a history database damaged mid-file', () => {
  let dataDir = '';
  let core: Core | null = null;
  afterEach(async () => {
    await core?.close();
    core = null;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it.each([
    { damage: 'a page whose cells point out of range', numBytes: 64 },
    { damage: 'a page overwritten whole', numBytes: PAGE_BYTES - 8 },
  ])(
    '$damage: found by quick_check at start, history "damaged" with the way out; the chat goes on',
    async ({ numBytes }) => {
      dataDir = mkdtempSync(join(tmpdir(), 'ff-damaged-'));
      damageMiddlePage(historyWithRows(dataDir), numBytes);
      core = await createTestCore(dataDir);
      const status = await core.service.call('app.status', {});
      expect(status.ok && status.value).toMatchObject({
        isPersistent: true,
        historyState: 'damaged',
        persistenceReason: expect.stringMatching(
          /^degraded: damaged: the history database is damaged in places \(quick_check at start: .+\); .*quit the app, move .*history\.sqlite aside/,
        ),
      });
      const created = await core.service.call('chat.createConversation', { title: 'after the damage' });
      if (!created.ok) throw new Error(created.error.message);
      const turn = await sendTurn(core, created.value.conversationId, 'Are you still there?');
      expect(turn.events.some((e) => e.name === 'request.done')).toBe(true);
    },
  );
});

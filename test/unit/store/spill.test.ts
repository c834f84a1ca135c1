import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../../src-main/store';
import type { SpillContent } from '../../../src-main/store/spill';
import { writeSpill } from '../../../src-main/store/spill';
import { everyFinishTimelines } from '../telemetry/trace/every-finish';

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

  const open = (file: string) => {
    const warnings: string[] = [];
    const store = openSqliteStore(file, { log: { warn: (_topic, message) => void warnings.push(message) } });
    return { store, warnings };
  };

  it('are stored at the next start exactly once, even if the file comes back after its delete', () => {
    dir = mkdtempSync(join(tmpdir(), 'ff-spill-'));
    const file = join(dir, 'history.sqlite');
    open(file).store.close();
    const kept = writeSpill(file, keptAtShutdown());
    if (!('path' in kept)) throw new Error(kept.error);
    expect(kept.path.startsWith(dir)).toBe(true);
    copyFileSync(kept.path, `${kept.path}.copy`);

    const first = open(file);
    expect(first.warnings).toEqual(['history: stored 5 item(s) the disk refused at the last shutdown']);
    expect(existsSync(kept.path)).toBe(false);
    expect(first.store.chats.getConversation('c-spilled')?.title).toBe('renamed while the disk was full');
    expect(first.store.chats.messages('c-spilled').map((m) => m.content)).toEqual(['x\n"y"']);
    expect(first.store.timelines.recent(100)).toHaveLength(2);
    first.store.close();

    copyFileSync(`${kept.path}.copy`, kept.path);
    rmSync(`${kept.path}.copy`);
    const second = open(file);
    expect(second.warnings).toEqual([]);
    expect(existsSync(kept.path)).toBe(false);
    expect(second.store.timelines.recent(100)).toHaveLength(2);
    expect(second.store.chats.messages('c-spilled')).toHaveLength(1);
    second.store.close();
  });

  it('fall back to the temp folder when the database folder cannot take them, and are found there', () => {
    dir = mkdtempSync(join(tmpdir(), 'ff-spill-'));
    // The folder is not there (moved, unmounted): nothing can be written beside the database.
    const file = join(dir, 'gone', 'history.sqlite');
    const kept = writeSpill(file, keptAtShutdown());
    if (!('path' in kept)) throw new Error(kept.error);
    expect(kept.path.startsWith(join(tmpdir(), 'first-frame-spill-'))).toBe(true);
    const reopened = open(file);
    expect(reopened.warnings).toEqual(['history: stored 5 item(s) the disk refused at the last shutdown']);
    expect(existsSync(kept.path)).toBe(false);
    expect(reopened.store.timelines.recent(100)).toHaveLength(2);
    reopened.store.close();
  });
});

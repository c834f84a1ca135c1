import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETENTION } from '../../../src-main/store/retention';
import { openSqliteStore } from '../../../src-main/store/store';
import { timeline } from '../telemetry/report/timeline-fixture';
import { useTempDirs } from './temp-dir';

const tempDir = useTempDirs();
const DAY_MS = 86_400_000;

describe('retention', () => {
  it('defaults to 30 days and a million requests, and remembers a new policy across reopening', () => {
    const path = join(tempDir(), 'h.db');
    const store = openSqliteStore(path);
    expect(store.retention.policy()).toEqual(DEFAULT_RETENTION);
    store.retention.setPolicy({ keepDays: 7, keepRequests: null });
    store.close();
    const again = openSqliteStore(path);
    expect(again.retention.policy()).toEqual({ keepDays: 7, keepRequests: null });
    again.close();
  });

  it('keeps only the newest N requests', () => {
    const store = openSqliteStore(join(tempDir(), 'h.db'));
    const timelines = Array.from({ length: 12 }, (_, i) => timeline({ id: `r${i}` }));
    for (const t of timelines) store.writer.enqueue(t);
    store.writer.flush();
    store.retention.setPolicy({ keepDays: null, keepRequests: 5 });
    expect(store.retention.prune().numRequests).toBe(7);
    expect(store.timelines.recent(100).map((t) => t.requestId)).toEqual(['r7', 'r8', 'r9', 'r10', 'r11']);
    store.close();
  });

  it('drops requests, slot events and empty runs older than N days, and never chat history', () => {
    const store = openSqliteStore(join(tempDir(), 'h.db'));
    const now = 100 * DAY_MS;
    const oldRun = store.runs.create({ name: 'old', startedWallMs: now - 40 * DAY_MS });
    store.writer.enqueue({ ...timeline({ id: 'old' }), runId: oldRun.runId, wallStartMs: now - 31 * DAY_MS });
    store.writer.enqueue({ ...timeline({ id: 'new' }), wallStartMs: now - 29 * DAY_MS });
    const slot = {
      slotId: 's',
      modelId: 'm',
      fromStatus: 'empty',
      toStatus: 'prefetching',
      cause: 'prefetch',
      reason: null,
    } as const;
    store.writer.enqueueSlotEvent({ ...slot, atWallMs: now - 31 * DAY_MS });
    store.writer.enqueueSlotEvent({ ...slot, atWallMs: now - DAY_MS });
    const chat = store.chats.createConversation({ title: 'kept', atWallMs: now - 300 * DAY_MS });
    store.writer.flush();
    store.retention.setPolicy({ keepDays: 30, keepRequests: null });
    expect(store.retention.prune(now)).toEqual({ numRequests: 1, numSlotEvents: 1, numRuns: 1 });
    expect(store.timelines.recent(10).map((t) => t.requestId)).toEqual(['new']);
    expect(store.chats.getConversation(chat.conversationId)).not.toBeNull();
    store.close();
  });
});

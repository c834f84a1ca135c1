import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETENTION } from '../../../src-main/history/retention';
import { openSqliteHistory } from '../../../src-main/history/history';
import { timeline } from '../telemetry/report/timeline-fixture';
import { useTempDirs } from './temp-dir';

const tempDir = useTempDirs();
const DAY_MS = 86_400_000;

describe('retention', () => {
  it('defaults to 30 days and a million requests, and remembers a new policy across reopening', () => {
    const path = join(tempDir(), 'h.db');
    const history = openSqliteHistory(path);
    expect(history.retention.policy()).toEqual(DEFAULT_RETENTION);
    history.retention.setPolicy({ keepDays: 7, keepRequests: null });
    history.close();
    const again = openSqliteHistory(path);
    expect(again.retention.policy()).toEqual({ keepDays: 7, keepRequests: null });
    again.close();
  });

  it('keeps only the newest N requests', () => {
    const history = openSqliteHistory(join(tempDir(), 'h.db'));
    const timelines = Array.from({ length: 12 }, (_, i) => timeline({ id: `r${i}` }));
    for (const t of timelines) history.writer.enqueue(t);
    history.writer.flush();
    history.retention.setPolicy({ keepDays: null, keepRequests: 5 });
    expect(history.retention.prune().numRequests).toBe(7);
    expect(history.timelines.recent(100).map((t) => t.requestId)).toEqual(['r7', 'r8', 'r9', 'r10', 'r11']);
    history.close();
  });

  it('drops requests, slot events and empty runs older than N days, and never chat history', () => {
    const history = openSqliteHistory(join(tempDir(), 'h.db'));
    const now = 100 * DAY_MS;
    const oldRun = history.runs.create({ name: 'old', startedWallMs: now - 40 * DAY_MS });
    history.writer.enqueue({
      ...timeline({ id: 'old' }),
      runId: oldRun.runId,
      wallStartMs: now - 31 * DAY_MS,
    });
    history.writer.enqueue({ ...timeline({ id: 'new' }), wallStartMs: now - 29 * DAY_MS });
    const slot = {
      slotId: 's',
      modelId: 'm',
      fromStatus: 'empty',
      toStatus: 'prefetching',
      cause: 'prefetch',
      reason: null,
    } as const;
    history.writer.enqueueSlotEvent({ ...slot, atWallMs: now - 31 * DAY_MS });
    history.writer.enqueueSlotEvent({ ...slot, atWallMs: now - DAY_MS });
    const chat = history.chats.createConversation({ title: 'kept', atWallMs: now - 300 * DAY_MS });
    history.writer.flush();
    history.retention.setPolicy({ keepDays: 30, keepRequests: null });
    expect(history.retention.prune(now)).toEqual({ numRequests: 1, numSlotEvents: 1, numRuns: 1 });
    expect(history.timelines.recent(10).map((t) => t.requestId)).toEqual(['new']);
    expect(history.chats.getConversation(chat.conversationId)).not.toBeNull();
    history.close();
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Runtime } from '../../../src-main/runtime/runtime';
import type { RuntimeOptions } from '../../../src-main/runtime/runtime-options';
import { openSqliteHistory } from '../../../src-main/history/history';
import type { History } from '../../../src-main/history/history';
import type { TokenIdRows } from '../../../src-main/runtime/tokenize/token-id-rows';
import { TIMELINE_COLUMNS } from '../../../src-main/telemetry/timeline/columns';
import { TEST_MODELS_DIR, TEST_MODEL_ID, expectNothingHeld, generate } from '../../support/runtime';

const PROMPT = {
  kind: 'text' as const,
  text: 'It was the best of times, it was the worst of times, it was the age of wisdom, it was the age of foolishness, it was the epoch of belief, it was the epoch of incredulity.',
};

describe('context pages kept on disk across a restart', () => {
  let dataDir: string;
  let history: History;
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'ff-disk-restart-'));
    history = openSqliteHistory(path.join(dataDir, 'history.sqlite'));
  });
  afterEach(() => {
    history.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A runtime over the data folder's pages, as the app builds it (a fresh history connection). */
  function start(
    overrides: Partial<RuntimeOptions> = {},
    tokenIds = (rows: TokenIdRows) => rows,
  ): Promise<Runtime> {
    history.close();
    history = openSqliteHistory(path.join(dataDir, 'history.sqlite'));
    return Runtime.create({
      bundledModelsDir: TEST_MODELS_DIR,
      numThreads: 1,
      isSpareWorker: false,
      pageSize: 16,
      diskPages: { dir: path.join(dataDir, 'context-pages'), rows: history.contextPages! },
      tokenIds: tokenIds(history.tokenPieces!),
      ...overrides,
    });
  }

  it('gives after a restart the same greedy tokens as computing the prompt anew, from pages read off disk', async () => {
    const first = await start();
    const recomputed = await generate(first, { prompt: PROMPT, maxTokens: 8, conversationId: 'c1' });
    expect(recomputed.timeline.diagnosis?.diskRead).toBeUndefined();
    await first.close();
    expect(history.contextPages!.all().length).toBeGreaterThan(2);
    expect(history.contextPages!.conversationLeaves()).toMatchObject([{ conversationId: 'c1' }]);

    const second = await start();
    try {
      const restored = await generate(second, { prompt: PROMPT, maxTokens: 8 });
      expect(restored.tokenIds).toEqual(recomputed.tokenIds);
      const diskRead = restored.timeline.diagnosis!.diskRead!;
      expect(diskRead).toMatchObject({ refused: null });
      expect(diskRead.numPages).toBeGreaterThan(2);
      expect(restored.timeline.numCachedTokens).toBe(diskRead.numPages * 16);
      // Stored and exported as its own column, a share of queue_ms (the parts still sum to TTFT).
      const column = TIMELINE_COLUMNS.find((c) => c.name === 'disk_read_ms')!;
      expect(column.value(restored.timeline)).toBe(diskRead.readMs);
      expect(restored.timeline.parts.queue).toBeGreaterThanOrEqual(diskRead.readMs);
      expectNothingHeld(second);
    } finally {
      await second.close();
    }
  });

  it('reads the pages back into RAM as the slot loads and seats the newest chain, so the resumed prompt starts from a retained past with the same greedy tokens', async () => {
    const first = await start();
    const recomputed = await generate(first, { prompt: PROMPT, maxTokens: 8 });
    await first.close();

    const second = await start();
    try {
      await second.prefetch(TEST_MODEL_ID);
      const outcome = (await second.settlePrefetch())!;
      expect(outcome).toMatchObject({ end: 'done' });
      expect(outcome.numPages).toBeGreaterThan(2);
      expect(second.pages!.numPages).toBe(outcome.numPages);
      const resumed = await generate(second, { prompt: PROMPT, maxTokens: 8 });
      expect(resumed.tokenIds).toEqual(recomputed.tokenIds);
      expect(resumed.timeline.diagnosis?.diskRead).toBeUndefined();
      // The newest conversation was seated in the worker as the prefetch ended: no page copy.
      expect(second.pageSummary().numRetainedPastHits).toBe(1);
      expect(resumed.timeline.numCachedTokens).toBeGreaterThan(2 * 16);
      expectNothingHeld(second);
    } finally {
      await second.close();
    }
  });

  it("takes a resumed prompt's token ids from the history after a restart, with the same greedy tokens, until forgotten", async () => {
    const first = await start();
    const recomputed = await generate(first, { prompt: PROMPT, maxTokens: 8 });
    await first.close();

    let numFound = 0;
    const second = await start({}, (rows) => ({
      ...rows,
      find: (tokenizerKey, textKey) => {
        const ids = rows.find(tokenizerKey, textKey);
        if (ids) numFound += 1;
        return ids;
      },
    }));
    try {
      const resumed = await generate(second, { prompt: PROMPT, maxTokens: 8 });
      expect(numFound).toBeGreaterThan(0);
      expect(resumed.timeline.numCachedTokens).toBeGreaterThan(2 * 16);
      expect(resumed.tokenIds).toEqual(recomputed.tokenIds);
      expectNothingHeld(second);
      // "Forget remembered context" takes the token ids with the pages (checked below).
      await second.forgetDiskPages(null);
    } finally {
      await second.close();
    }
    const db = new Database(path.join(dataDir, 'history.sqlite'), { readonly: true });
    expect(db.prepare('SELECT count(*) AS n FROM token_pieces').get()).toEqual({ n: 0 });
    db.close();
  });
});

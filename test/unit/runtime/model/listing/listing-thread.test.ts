import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withLazyTokenizer } from '../../../../../src-main/runtime/tokenize/tokenizer-files';
import { ListingThread } from '../../../../../src-main/runtime/model/listing/listing-thread';
import { LISTING_BUDGET } from '../../../../../src-main/runtime/model/listing/listing-protocol';
import { heavyArraysGguf } from '../../../../support/hostile-gguf';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from '../../../../support/models';

const BUNDLED = path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID);

describe('the listing thread', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'ff-listing-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('answers a folder as plain data whose tokenizer is rebuilt from the same files on first use', async () => {
    const thread = new ListingThread();
    const result = await thread.list({
      kind: 'folder',
      path: BUNDLED,
      convertedDir: null,
      defaultSampling: null,
    });
    await thread.close();
    expect(result.status).toBe('ok');
    if (result.status !== 'ok') return;
    expect('tokenizer' in result.folder).toBe(false);
    const folder = withLazyTokenizer(result.folder);
    expect(folder.tokenizer.vocabSize).toBe(folder.shape.vocabSize);
    expect(folder.tokenizer).toBe(folder.tokenizer);
  });

  it('refuses a model over the time budget, naming it, and lists the next in a fresh thread', async () => {
    const thread = new ListingThread({ ...LISTING_BUDGET, maxMs: 1 });
    const job = { kind: 'folder', path: BUNDLED, convertedDir: null, defaultSampling: null } as const;
    expect(await thread.list(job)).toEqual({
      status: 'broken',
      problem: `${BUNDLED}: refused: reading it took longer than 1 ms, the limit per model`,
    });
    expect((await thread.list(job)).status).toBe('broken');
    await thread.close();
  });

  it('refuses a model over the memory budget, naming it', async () => {
    const thread = new ListingThread({ maxMs: LISTING_BUDGET.maxMs, maxHeapMb: 32 });
    const file = heavyArraysGguf(dir, 3);
    const result = await thread.list({ kind: 'gguf', path: file, convertedDir: dir, defaultSampling: null });
    await thread.close();
    expect(result).toEqual({
      status: 'broken',
      problem: 'refused: reading it needed more than 32 MB of memory, the limit per model',
    });
  });
});

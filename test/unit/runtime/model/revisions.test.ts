import { mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { layoutRevisionOf, RevisionCache } from '../../../../src-main/runtime/model/revisions';

const SHAPE = {
  numLayers: 6,
  numKvHeads: 4,
  headDim: 32,
  vocabSize: 4096,
  hiddenSize: 256,
  maxPositions: 2048,
};

describe('revisions', () => {
  it('does not rehash an unchanged file after a restart, and rehashes a changed one', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ff-rev-'));
    const file = path.join(dir, 'weights.bin');
    const cacheFile = path.join(dir, 'revisions.json');
    writeFileSync(file, 'first weights');
    const first = await new RevisionCache(cacheFile).hashFiles([file]);
    const cached = JSON.parse(readFileSync(cacheFile, 'utf8')) as Record<string, { sha256: string }>;
    cached[file]!.sha256 = 'remembered';
    writeFileSync(cacheFile, JSON.stringify(cached));
    expect(await new RevisionCache(cacheFile).hashFiles([file])).toBe('remembered');
    writeFileSync(file, 'other weights!');
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    const changed = await new RevisionCache(cacheFile).hashFiles([file]);
    expect(changed).not.toBe('remembered');
    expect(changed).not.toBe(first);
  });

  it('gives a new layout revision when the K/V dtype, geometry or page size changes', () => {
    const base = layoutRevisionOf(SHAPE, 16, 'float32');
    expect(layoutRevisionOf(SHAPE, 16, 'float32')).toBe(base);
    expect(layoutRevisionOf(SHAPE, 16, 'float16')).not.toBe(base);
    expect(layoutRevisionOf(SHAPE, 32, 'float32')).not.toBe(base);
    expect(layoutRevisionOf({ ...SHAPE, numKvHeads: 8 }, 16, 'float32')).not.toBe(base);
    expect(layoutRevisionOf({ ...SHAPE, numLayers: 5 }, 16, 'float32')).not.toBe(base);
  });
});

import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GRAPH_REWRITE_FORM } from '../../../../src-main/runtime/model/onnx-graph/rewrite-for-slot';
import { FUSE_AT_LOAD_FORM } from '../../../../src-main/runtime/model/fuse-at-load/form';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CACHE_HEADROOM_BYTES,
  cacheSpaceProblem,
  commitGraph,
  graphCacheKey,
  GRAPH_DATA_FILE,
  GRAPH_FILE,
  isCompleteEntry,
  pendingGraphDir,
} from '../../../../src-main/runtime/slot-worker/graph-cache';
import {
  STALE_PARTIAL_MS,
  sweepGraphCache,
} from '../../../../src-main/runtime/slot-worker/graph-cache-sweep';
import { consoleLog } from '../../../../src-main/telemetry/log/log';

const GIB = 1024 ** 3;
const freeOf = (bytes: number) => () => bytes;

/** Writes an entry folder holding the graph and, unless told otherwise, its data. */
function writeEntry(entry: string, content: string, hasData = true): void {
  mkdirSync(entry, { recursive: true });
  writeFileSync(join(entry, GRAPH_FILE), content);
  if (hasData) writeFileSync(join(entry, GRAPH_DATA_FILE), content);
}

describe('graph cache entries', () => {
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ff-graph-unit-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keys entries with and without pre-packed weights apart', () => {
    expect(graphCacheKey('rev', 'cpu', true)).not.toBe(graphCacheKey('rev', 'cpu', false));
  });

  it('gives every save its own pending folder', () => {
    const entry = join(dir, 'key');
    expect(pendingGraphDir(entry)).not.toBe(pendingGraphDir(entry));
  });

  it('keeps a complete entry another save committed first and drops this save', () => {
    const entry = join(dir, 'key');
    writeEntry(entry, 'first');
    const pending = pendingGraphDir(entry);
    writeEntry(pending, 'second');
    commitGraph(pending, entry);
    expect(readFileSync(join(entry, GRAPH_FILE), 'utf8')).toBe('first');
    expect(existsSync(pending)).toBe(false);
  });

  it('replaces an incomplete entry (a graph without its data) with the committed save', () => {
    const entry = join(dir, 'key');
    writeEntry(entry, 'leftover', false);
    expect(isCompleteEntry(entry)).toBe(false);
    const pending = pendingGraphDir(entry);
    writeEntry(pending, 'new');
    commitGraph(pending, entry);
    expect(isCompleteEntry(entry)).toBe(true);
    expect(readFileSync(join(entry, GRAPH_DATA_FILE), 'utf8')).toBe('new');
  });

  it('sweeps earlier versions’ .ort files, format-1 entries and day-old pending folders, and keeps the rest', () => {
    writeFileSync(join(dir, 'old-key.ort'), 'flatbuffer');
    writeEntry(join(dir, 'rev-machine-pp1'), 'graph');
    writeFileSync(join(dir, 'rev-machine-np1.unusable'), 'why');
    writeEntry(join(dir, 'live-key'), 'graph');
    writeEntry(join(dir, `rev-machine-np${GRAPH_REWRITE_FORM}`), 'graph');
    const fresh = pendingGraphDir(join(dir, 'live-key'));
    const stale = pendingGraphDir(join(dir, 'dead-key'));
    const longAgo = (Date.now() - STALE_PARTIAL_MS - 60_000) / 1000;
    utimesSync(stale, longAgo, longAgo);
    expect(sweepGraphCache(dir, consoleLog).sort()).toEqual(
      ['old-key.ort', 'rev-machine-np1.unusable', 'rev-machine-pp1', stale.split('/').pop()].sort(),
    );
    expect(readdirSync(dir).sort()).toEqual(
      ['live-key', `rev-machine-np${GRAPH_REWRITE_FORM}`, fresh.split('/').pop()].sort(),
    );
  });

  it('sweeps fused graphs of another fusion form and keeps the current form', () => {
    writeEntry(join(dir, `rev-machine-fused${FUSE_AT_LOAD_FORM + 1}`), 'graph');
    writeEntry(join(dir, `rev-machine-fused${FUSE_AT_LOAD_FORM}`), 'graph');
    expect(sweepGraphCache(dir, consoleLog)).toEqual([`rev-machine-fused${FUSE_AT_LOAD_FORM + 1}`]);
    expect(readdirSync(dir)).toEqual([`rev-machine-fused${FUSE_AT_LOAD_FORM}`]);
  });

  it('sweeps nothing when there is no cache folder yet', () => {
    expect(sweepGraphCache(join(dir, 'missing'), consoleLog)).toEqual([]);
  });
});

describe('cacheSpaceProblem', () => {
  it('allows a save when the entry plus the headroom is free', () => {
    expect(cacheSpaceProblem('/cache', 8 * GIB, freeOf(8 * GIB + CACHE_HEADROOM_BYTES))).toBeNull();
  });

  it('refuses a save short of disk space, saying what it needs and what is free', () => {
    expect(cacheSpaceProblem('/cache', 8 * GIB, freeOf(6 * GIB))).toBe(
      'needs up to 9.0 GiB free (the entry, plus 1.0 GiB left over), 6.0 GiB free',
    );
    expect(cacheSpaceProblem('/cache', 8 * GIB, freeOf(8 * GIB + CACHE_HEADROOM_BYTES - 1))).not.toBeNull();
  });
});

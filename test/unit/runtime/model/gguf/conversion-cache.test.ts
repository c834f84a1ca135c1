import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  clearConversionCache,
  conversionCacheOf,
  convertedDirsInUse,
} from '../../../../../src-main/runtime/model/gguf/conversion-cache';

const roots: string[] = [];
afterEach(() => roots.splice(0).forEach((root) => rmSync(root, { recursive: true, force: true })));

/** A cache root with converted folders named `names`, each holding `numBytes` of data and a record naming its source. */
function cacheWith(names: string[], numBytes = 64 * 1024): string {
  const root = mkdtempSync(path.join(tmpdir(), 'ff-conversion-cache-'));
  roots.push(root);
  for (const name of names) {
    mkdirSync(path.join(root, name, 'onnx'), { recursive: true });
    writeFileSync(path.join(root, name, 'onnx', 'model.onnx.data'), Buffer.alloc(numBytes, 1));
    writeFileSync(
      path.join(root, name, 'conversion.json'),
      JSON.stringify({ sourcePath: `/models/${name}.gguf` }),
    );
  }
  return root;
}

/** A slot as the registry holds it, reading the converted folder `dir`. */
const slotOn = (status: string, dir: string, conversion: unknown = null) => ({
  status,
  conversion,
  model: { conversion: null, graph: { onnxPath: path.join(dir, 'onnx', 'model.onnx') } },
});

describe('the GGUF conversion cache', () => {
  it('counts each converted folder with its source and bytes, and what a clear would free', async () => {
    const root = cacheWith(['loaded', 'idle']);
    const state = await conversionCacheOf(root, new Set([path.join(root, 'loaded')]));
    expect(state.folders.map((f) => [path.basename(f.dir), f.sourcePath, f.isInUse])).toEqual([
      ['idle', '/models/idle.gguf', false],
      ['loaded', '/models/loaded.gguf', true],
    ]);
    expect(state.folders.every((f) => f.numBytes >= 64 * 1024)).toBe(true);
    expect(state.numBytes).toBe(state.folders[0]!.numBytes + state.folders[1]!.numBytes);
    expect(state.numFreeableBytes).toBe(state.folders[0]!.numBytes);
  });

  it('clears only the folders no loaded, loading or converting model reads', async () => {
    const root = cacheWith([
      'resident',
      'loading',
      'converting',
      'evicted',
      'failed',
      'converting.partial-7-1-x',
    ]);
    const slots = [
      slotOn('resident', path.join(root, 'resident')),
      slotOn('prefetching', path.join(root, 'loading')),
      {
        ...slotOn('prefetching', '/elsewhere'),
        model: {
          conversion: { dir: path.join(root, 'converting') },
          graph: { onnxPath: '/x/onnx/model.onnx' },
        },
      },
      slotOn('empty', path.join(root, 'evicted')),
      slotOn('failed', path.join(root, 'failed')),
    ];
    const cleared = await clearConversionCache(root, () => convertedDirsInUse(slots));
    expect(readdirSync(root).sort()).toEqual([
      'converting',
      'converting.partial-7-1-x',
      'loading',
      'resident',
    ]);
    expect(cleared).toMatchObject({ numRemoved: 2, numKeptInUse: 4, problems: [] });
    expect(cleared.numFreedBytes).toBeGreaterThanOrEqual(2 * 64 * 1024);
  });

  it('asks what is in use again before each removal, so a model that starts loading meanwhile keeps its folder', async () => {
    const root = cacheWith(['a', 'b']);
    const inUse = new Set<string>();
    let numAsked = 0;
    const cleared = await clearConversionCache(root, () => {
      numAsked += 1;
      if (numAsked === 2) inUse.add(path.join(root, 'a')); // a load began after the listing
      return inUse;
    });
    expect(existsSync(path.join(root, 'a'))).toBe(true);
    expect(existsSync(path.join(root, 'b'))).toBe(false);
    expect(cleared).toMatchObject({ numRemoved: 1, numKeptInUse: 1 });
  });

  it('reads an absent cache as empty and clears nothing', async () => {
    expect(await conversionCacheOf(null, new Set())).toEqual({
      folders: [],
      numBytes: 0,
      numFreeableBytes: 0,
    });
    const missing = path.join(tmpdir(), 'ff-no-such-cache-folder');
    expect(await clearConversionCache(missing, () => new Set())).toMatchObject({
      numRemoved: 0,
      numKeptInUse: 0,
    });
  });
});

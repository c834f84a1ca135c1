import { describe, expect, it } from 'vitest';
import { KvBatch } from '../../../../../src-main/runtime/slot-worker/kv-batch';
import { SlotKv } from '../../../../../src-main/runtime/slot-worker/ort-binding/slot-kv';
import { pageElements } from '../../../../../src-main/runtime/model/kv-geometry';

const GEOMETRY = { numLayers: 2, numKvHeads: 2, headDim: 3, kvDtype: 'float32', rows: 'start' } as const;
const PAGE_SIZE = 2;

/** A page whose every element is distinct (so a misplaced copy shows). */
function pageOf(seed: number): Float32Array {
  return Float32Array.from({ length: pageElements(GEOMETRY, PAGE_SIZE) }, (_, i) => seed * 1000 + i + 1);
}

describe('SlotKv (a slot’s one K/V buffer)', () => {
  it('copies pages into a row and back out unchanged, in the layout KvBatch pages use', () => {
    const kv = new SlotKv(GEOMETRY, 3, 8);
    const pages = [pageOf(1), pageOf(2)];
    pages.forEach((page, index) => kv.copyPageIn(1, index, PAGE_SIZE, page));
    expect(kv.numTokensOf(1)).toBe(4);
    expect(kv.numTokensOf(0)).toBe(0);
    const out = new Float32Array(pageElements(GEOMETRY, PAGE_SIZE));
    kv.copyPageOut(1, 1, PAGE_SIZE, out);
    expect(out).toEqual(pages[1]);
    // The same pages assembled by KvBatch give the same page back: one layout for both paths.
    const batch = KvBatch.fromPages(GEOMETRY, 's', pages, PAGE_SIZE);
    const fromBatch = new Float32Array(out.length);
    batch.copyPage('s', 1, PAGE_SIZE, fromBatch);
    expect(fromBatch).toEqual(out);
  });

  it('gives a batch of consecutive rows a view over the buffer, and refuses rows it lacks', () => {
    const kv = new SlotKv(GEOMETRY, 3, 8);
    const rowElements = 2 * 8 * 3;
    const views = kv.viewsOf({ first: 1, count: 2 });
    expect(views).toHaveLength(4);
    expect(views[0]!.buffer).toBe(kv.tensors[0]!.buffer);
    expect(views[0]!.byteOffset).toBe(rowElements * 4);
    expect(views[0]!.length).toBe(2 * rowElements);
    expect(() => kv.viewsOf({ first: 2, count: 2 })).toThrow(/not among the 3/);
  });

  it('counts each forward’s new tokens per row and refuses a forward past the capacity', () => {
    const kv = new SlotKv(GEOMETRY, 2, 4);
    kv.advance({ first: 0, count: 2 }, 3);
    expect(kv.capacityProblem({ first: 0, count: 1 }, 2)).toMatch(/exceed the capacity 4/);
    kv.advance({ first: 1, count: 1 }, 1);
    expect([kv.numTokensOf(0), kv.numTokensOf(1)]).toEqual([3, 4]);
    kv.clear(1);
    expect(kv.numTokensOf(1)).toBe(0);
    expect(() => kv.copyPageIn(0, 0, PAGE_SIZE, pageOf(1))).toThrow(/does not follow them/);
  });

  it('swaps two rows, grows with every row kept, and cuts a row to its pages', () => {
    const kv = new SlotKv(GEOMETRY, 2, 4);
    kv.copyPageIn(0, 0, PAGE_SIZE, pageOf(1));
    kv.copyPageIn(1, 0, PAGE_SIZE, pageOf(2));
    kv.copyPageIn(1, 1, PAGE_SIZE, pageOf(3));
    kv.swapRows(0, 1);
    const out = new Float32Array(pageElements(GEOMETRY, PAGE_SIZE));
    kv.copyPageOut(0, 1, PAGE_SIZE, out);
    expect(out).toEqual(pageOf(3));
    expect([kv.numTokensOf(0), kv.numTokensOf(1)]).toEqual([4, 2]);
    const grown = kv.grown(4, 8);
    grown.copyPageOut(1, 0, PAGE_SIZE, out);
    expect(out).toEqual(pageOf(1));
    expect([grown.numTokensOf(0), grown.numTokensOf(3)]).toEqual([4, 0]);
    grown.truncate(0, 2);
    expect(() => grown.copyPageOut(0, 1, PAGE_SIZE, out)).toThrow(/not complete/);
    expect(() => grown.truncate(0, 3)).toThrow(/cannot keep 3/);
  });

  it('reports the bytes its arrays allocate, after growing too', () => {
    const kv = new SlotKv(GEOMETRY, 1, 4);
    const allocated = (k: SlotKv) => k.tensors.reduce((sum, t) => sum + t.byteLength, 0);
    expect(kv.bytes).toBe(allocated(kv));
    expect(kv.bytes).toBe(2 * 2 * 1 * 2 * 4 * 3 * 4);
    const grown = kv.grown(3, 10);
    expect(grown.bytes).toBe(allocated(grown));
    expect(grown.bytes).toBe(2 * 2 * 3 * 2 * 10 * 3 * 4);
  });

  it('shrinks to the rows it keeps, in the order asked, and refuses a row longer than the capacity', () => {
    const kv = new SlotKv(GEOMETRY, 3, 8);
    kv.copyPageIn(0, 0, PAGE_SIZE, pageOf(1));
    kv.copyPageIn(2, 0, PAGE_SIZE, pageOf(2));
    kv.copyPageIn(2, 1, PAGE_SIZE, pageOf(3));
    const shrunk = kv.relaid([2], 1, 4);
    expect(shrunk.bytes).toBe(kv.bytes / 6);
    expect(shrunk.numTokensOf(0)).toBe(4);
    const out = new Float32Array(pageElements(GEOMETRY, PAGE_SIZE));
    shrunk.copyPageOut(0, 1, PAGE_SIZE, out);
    expect(out).toEqual(pageOf(3));
    expect(() => kv.relaid([2], 1, 2)).toThrow(/holds 4 tokens: more than 2/);
    expect(() => kv.relaid([0, 2], 1, 8)).toThrow(/2 rows kept in a buffer of 1/);
  });
});

import { describe, expect, it } from 'vitest';
import { KvBatch, pageElements } from '../../../../src-main/runtime/engine/kv-batch';
import { RetainedPasts } from '../../../../src-main/runtime/engine/retained-pasts';

const GEOMETRY = { numLayers: 2, numKvHeads: 2, headDim: 3, kvDtype: 'float32' } as const;

/** A one-row batch whose K/V value at (tensor t, head h, token i, dim d) encodes its coordinates. */
function rowWithTokens(seqId: string, numTokens: number): KvBatch {
  let batch = KvBatch.empty(GEOMETRY, [seqId]);
  const present = Array.from({ length: 4 }, (_, t) =>
    Float32Array.from({ length: 2 * numTokens * 3 }, (_, i) => t * 1000 + i),
  );
  batch = batch.advanced(present, numTokens);
  return batch;
}

describe('KvBatch', () => {
  it('left-pads rows so each row’s newest token is in the last column, with a matching mask and positions', () => {
    const a = rowWithTokens('a', 4);
    const b = rowWithTokens('b', 2);
    const batch = KvBatch.gather(GEOMETRY, [
      { batch: a, seqId: 'a' },
      { batch: b, seqId: 'b' },
    ]);
    expect(batch.dims).toEqual([2, 2, 4, 3]);
    expect([...batch.attentionMask(1)]).toEqual([1n, 1n, 1n, 1n, 1n, 0n, 0n, 1n, 1n, 1n]);
    expect([...batch.positionIds(1)]).toEqual([4n, 2n]);
  });

  it('copies a page out and assembles the same past back from pages', () => {
    const row = rowWithTokens('a', 4);
    const pages = [0, 1].map((p) => {
      const page = new Float32Array(pageElements(GEOMETRY, 2));
      row.copyPage('a', p, 2, page);
      return page;
    });
    const rebuilt = KvBatch.fromPages(GEOMETRY, 'a', pages, 2);
    expect(rebuilt.tensors.map((t) => [...t])).toEqual(row.tensors.map((t) => [...t]));
  });

  it('cuts a one-row past to a shorter prefix in its own memory, equal to a copied prefix', () => {
    const row = rowWithTokens('a', 5);
    const expected = KvBatch.prefix(row, 'a', 3).tensors.map((t) => [...t]);
    const buffers = row.tensors.map((t) => t.buffer);
    const cut = row.cutInPlace(3, 'b');
    expect(cut.rows).toEqual([{ seqId: 'b', numTokens: 3, numPad: 0 }]);
    expect(cut.dims).toEqual([1, 2, 3, 3]);
    expect(cut.tensors.map((t) => [...t])).toEqual(expected);
    cut.tensors.forEach((t, i) => expect(t.buffer).toBe(buffers[i]));
  });

  it('refuses to cut a padded or multi-row batch in place', () => {
    const batch = KvBatch.gather(GEOMETRY, [
      { batch: rowWithTokens('a', 4), seqId: 'a' },
      { batch: rowWithTokens('b', 2), seqId: 'b' },
    ]);
    expect(() => batch.cutInPlace(2, 'c')).toThrow(/one-row, unpadded/);
    expect(() => rowWithTokens('a', 2).cutInPlace(3, 'c')).toThrow(/holds 2 tokens/);
  });

  it('refuses to copy a page that is not complete', () => {
    expect(() =>
      rowWithTokens('a', 3).copyPage('a', 1, 2, new Float32Array(pageElements(GEOMETRY, 2))),
    ).toThrow(/not complete/);
  });
});

describe('RetainedPasts', () => {
  it('keeps a finished row’s completed pages and hands them on unchanged, or cut, to the next sequence', () => {
    const retained = new RetainedPasts();
    const row = rowWithTokens('a', 5);
    const expected = KvBatch.prefix(row, 'a', 4).tensors.map((t) => [...t]);
    retained.keep(KvBatch.prefix(row, 'a', 5), 'a', 4); // handed over: kept whole, cut when taken
    const exact = retained.take('a', 4, 'b')!;
    expect(exact.rows).toEqual([{ seqId: 'b', numTokens: 4, numPad: 0 }]);
    expect(exact.tensors.map((t) => [...t])).toEqual(expected);
    expect(retained.take('a', 4, 'c')).toBeNull(); // taken once
    retained.keep(KvBatch.prefix(row, 'a', 5), 'a', 4);
    const cut = retained.take('a', 2, 'c')!;
    const pages = [0].map(() => {
      const page = new Float32Array(pageElements(GEOMETRY, 2));
      row.copyPage('a', 0, 2, page);
      return page;
    });
    expect(cut.tensors.map((t) => [...t])).toEqual(
      KvBatch.fromPages(GEOMETRY, 'c', pages, 2).tensors.map((t) => [...t]),
    );
  });

  it('keeps a sequence that was alone in its batch without copying it, and copies one out of a shared batch', () => {
    const retained = new RetainedPasts();
    const alone = rowWithTokens('a', 5);
    retained.keep(alone, 'a', 4);
    expect(retained.take('a', 4, 'b')!.tensors[0]!.buffer).toBe(alone.tensors[0]!.buffer);
    const shared = KvBatch.gather(GEOMETRY, [
      { batch: rowWithTokens('c', 4), seqId: 'c' },
      { batch: rowWithTokens('d', 2), seqId: 'd' },
    ]);
    retained.keep(shared, 'd', 2);
    const taken = retained.take('d', 2, 'e')!;
    expect(taken.tensors[0]!.buffer).not.toBe(shared.tensors[0]!.buffer);
    expect(taken.tensors.map((t) => [...t])).toEqual(
      KvBatch.prefix(shared, 'd', 2).tensors.map((t) => [...t]),
    );
  });

  it('cuts a whole kept past to its retained tokens when trimmed, so the next turn takes it as it is', () => {
    const retained = new RetainedPasts();
    const row = rowWithTokens('a', 5);
    const expected = KvBatch.prefix(row, 'a', 4).tensors.map((t) => [...t]);
    retained.keep(row, 'a', 4);
    retained.trim();
    const taken = retained.take('a', 4, 'b')!;
    expect(taken.numColumns).toBe(4);
    expect(taken.tensors[0]!.buffer).toBe(row.tensors[0]!.buffer);
    expect(taken.tensors.map((t) => [...t])).toEqual(expected);
  });

  it('refuses a past shorter than the pages asked for and forgets the oldest beyond its capacity', () => {
    const retained = new RetainedPasts();
    retained.keep(rowWithTokens('a', 4), 'a', 2);
    expect(retained.take('a', 4, 'b')).toBeNull();
    retained.keep(rowWithTokens('b', 4), 'b', 4);
    retained.keep(rowWithTokens('c', 4), 'c', 4);
    expect(retained.size).toBe(2);
    expect(retained.take('a', 2, 'x')).toBeNull();
  });
});

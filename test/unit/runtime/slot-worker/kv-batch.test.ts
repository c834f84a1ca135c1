import { describe, expect, it } from 'vitest';
import { KvBatch, SPARE_COLUMNS } from '../../../../src-main/runtime/slot-worker/kv-batch';
import {
  attentionMaskOf,
  newColumnIndexOf,
  positionIdsOf,
  sequenceLengthsOf,
} from '../../../../src-main/runtime/slot-worker/kv-feeds';
import { pageElements } from '../../../../src-main/runtime/model/kv-geometry';
import type { KvArray } from '../../../../src-main/runtime/slot-worker/kv-batch';
import { RetainedPasts } from '../../../../src-main/runtime/slot-worker/retained-pasts';

const GEOMETRY = { numLayers: 2, numKvHeads: 2, headDim: 3, kvDtype: 'float32', rows: 'end' } as const;

/** A one-row batch whose K/V value at (tensor t, head h, token i, dim d) encodes its coordinates. */
function rowWithTokens(seqId: string, numTokens: number): KvBatch {
  let batch = KvBatch.empty(GEOMETRY, [seqId]);
  const present = Array.from({ length: 4 }, (_, t) =>
    Float32Array.from({ length: 2 * numTokens * 3 }, (_, i) => t * 1000 + i),
  );
  batch = batch.advanced({ form: 'present', tensors: present }, numTokens);
  return batch;
}

/** Rows a (4 tokens) and b (2 tokens, so 2 pad columns) gathered into one batch. */
function paddedPair(): KvBatch {
  return KvBatch.gather(GEOMETRY, [
    { batch: rowWithTokens('a', 4), seqId: 'a' },
    { batch: rowWithTokens('b', 2), seqId: 'b' },
  ]);
}

/** Each tensor's real columns (row by row, head by head; padding and spare columns left out). */
function realColumns(batch: KvBatch): number[][] {
  const { numKvHeads, headDim } = GEOMETRY;
  return batch.tensors.map((tensor) =>
    batch.rows.flatMap((row, r) =>
      Array.from({ length: numKvHeads }, (_, h) => {
        const from = ((r * numKvHeads + h) * batch.width + row.numPad) * headDim;
        return [...tensor.subarray(from, from + row.numTokens * headDim)];
      }).flat(),
    ),
  );
}

describe('KvBatch', () => {
  it('left-pads rows so each row’s newest token is in the last column, with a matching mask and positions', () => {
    const batch = paddedPair();
    expect(batch.dims).toEqual([2, 2, 4, 3]);
    expect([...attentionMaskOf(batch, 1).mask]).toEqual([1n, 1n, 1n, 1n, 1n, 0n, 0n, 1n, 1n, 1n]);
    expect([...positionIdsOf(batch, 1)]).toEqual([4n, 2n]);
  });

  it('copies a page out and assembles the same past back from pages', () => {
    const row = rowWithTokens('a', 4);
    const pages = [0, 1].map((p) => {
      const page = new Float32Array(pageElements(GEOMETRY, 2));
      row.copyPage('a', p, 2, page);
      return page;
    });
    const rebuilt = KvBatch.fromPages(GEOMETRY, 'a', pages, 2);
    expect(realColumns(rebuilt)).toEqual(realColumns(row));
  });

  it('cuts a one-row past to a shorter prefix where it lies, equal to a copied prefix, the rest left as spare columns', () => {
    const row = rowWithTokens('a', 5);
    const expected = realColumns(KvBatch.prefix(row, 'a', 3));
    const buffers = row.tensors.map((t) => t.buffer);
    const cut = row.cutInPlace(3, 'b');
    expect(cut.rows).toEqual([{ seqId: 'b', numTokens: 3, numPad: 0 }]);
    expect(cut.dims).toEqual([1, 2, 5, 3]);
    expect([...attentionMaskOf(cut, 1).mask]).toEqual([1n, 1n, 1n, 0n, 0n, 1n]);
    expect(realColumns(cut)).toEqual(expected);
    cut.tensors.forEach((t, i) => expect(t.buffer).toBe(buffers[i]));
  });

  it('refuses to cut a padded or multi-row batch in place', () => {
    expect(() => paddedPair().cutInPlace(2, 'c')).toThrow(/one-row, unpadded/);
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
    const expected = realColumns(KvBatch.prefix(row, 'a', 4));
    retained.keep(KvBatch.prefix(row, 'a', 5), 'a', 4); // handed over: kept whole, cut when taken
    const exact = retained.take('a', 4, 'b')!;
    expect(exact.rows).toEqual([{ seqId: 'b', numTokens: 4, numPad: 0 }]);
    expect(realColumns(exact)).toEqual(expected);
    expect(retained.take('a', 4, 'c')).toBeNull(); // taken once
    retained.keep(KvBatch.prefix(row, 'a', 5), 'a', 4);
    const cut = retained.take('a', 2, 'c')!;
    const pages = [0].map(() => {
      const page = new Float32Array(pageElements(GEOMETRY, 2));
      row.copyPage('a', 0, 2, page);
      return page;
    });
    expect(realColumns(cut)).toEqual(realColumns(KvBatch.fromPages(GEOMETRY, 'c', pages, 2)));
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
    expect(realColumns(taken)).toEqual(realColumns(KvBatch.prefix(shared, 'd', 2)));
  });

  it('cuts a whole kept past to its retained tokens where it lies when the next turn takes it', () => {
    const retained = new RetainedPasts();
    const row = rowWithTokens('a', 5);
    const expected = realColumns(KvBatch.prefix(row, 'a', 4));
    retained.keep(row, 'a', 4);
    const taken = retained.take('a', 4, 'b')!;
    expect(taken.numColumns).toBe(4);
    expect(taken.tensors[0]!.buffer).toBe(row.tensors[0]!.buffer);
    expect(realColumns(taken)).toEqual(expected);
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

describe('KvBatch with new columns only (graphs with delta outputs)', () => {
  /** New columns for `numRows` rows: value (tensor t, block b, token j, dim d) = t*1000 + tag + b*10 + j. */
  const fresh = (numRows: number, numNew: number, tag: number): KvArray[] =>
    Array.from({ length: 4 }, (_, t) =>
      Float32Array.from({ length: numRows * 2 * numNew * 3 }, (_, i) => {
        const block = Math.floor(i / (numNew * 3));
        return t * 1000 + tag + block * 10 + Math.floor((i % (numNew * 3)) / 3);
      }),
    );
  /** Row `r`, head `h`, tensor `t` as a list of columns (each the first dim's value), real tokens only. */
  const columns = (batch: KvBatch, t: number, r: number, h: number): number[] => {
    const base = (r * 2 + h) * batch.width * 3;
    const row = batch.rows[r]!;
    return Array.from({ length: row.numTokens }, (_, j) => batch.tensors[t]![base + (row.numPad + j) * 3]!);
  };

  it('takes a first forward’s columns as they came, then moves to spare columns and writes later ones in place', () => {
    const first = KvBatch.empty(GEOMETRY, ['a']).advanced({ form: 'new', tensors: fresh(1, 3, 100) }, 3);
    expect(first.width).toBe(3);
    expect(first.tensors[0]).toHaveLength(2 * 3 * 3);
    const second = first.advanced({ form: 'new', tensors: fresh(1, 1, 500) }, 1);
    expect(second.width).toBe(4 + SPARE_COLUMNS);
    const third = second.advanced({ form: 'new', tensors: fresh(1, 1, 600) }, 1);
    expect(third.tensors).toBe(second.tensors); // in place
    expect(third.dims).toEqual([1, 2, 4 + SPARE_COLUMNS, 3]);
    expect(columns(third, 1, 0, 1)).toEqual([1110, 1111, 1112, 1510, 1610]);
    const mask = [...attentionMaskOf(third, 1).mask];
    expect(mask.slice(0, 5)).toEqual([1n, 1n, 1n, 1n, 1n]);
    expect(mask.slice(5, 4 + SPARE_COLUMNS).every((m) => m === 0n)).toBe(true);
    expect(mask.at(-1)).toBe(1n);
    expect([...positionIdsOf(third, 1)]).toEqual([5n]);
  });

  it('never writes over columns a later batch on the same tensors already wrote', () => {
    const base = KvBatch.empty(GEOMETRY, ['a'])
      .advanced({ form: 'new', tensors: fresh(1, 2, 100) }, 2)
      .advanced({ form: 'new', tensors: fresh(1, 1, 200) }, 1);
    const ahead = base.advanced({ form: 'new', tensors: fresh(1, 1, 500) }, 1);
    const fork = base.advanced({ form: 'new', tensors: fresh(1, 1, 700) }, 1);
    expect(ahead.tensors).toBe(base.tensors);
    expect(fork.tensors).not.toBe(base.tensors);
    expect(columns(ahead, 0, 0, 0)).toEqual([100, 101, 200, 500]);
    expect(columns(fork, 0, 0, 0)).toEqual([100, 101, 200, 700]);
  });

  it('appends to left-padded rows and reads pages and cuts at the padded width', () => {
    const batch = paddedPair().advanced({ form: 'new', tensors: fresh(2, 2, 300) }, 2);
    expect(batch.rows.map((r) => [r.numTokens, r.numPad])).toEqual([
      [6, 0],
      [4, 2],
    ]);
    expect(columns(batch, 0, 1, 1)).toEqual([6, 9, 330, 331]);
    const target = new Float32Array(pageElements(GEOMETRY, 2));
    batch.copyPage('b', 1, 2, target);
    expect(target[0]).toBe(320);
    const alone = KvBatch.empty(GEOMETRY, ['c']).advanced({ form: 'new', tensors: fresh(1, 5, 100) }, 5);
    const cut = alone.cutInPlace(3, 'd');
    expect(cut.width).toBe(5);
    expect(columns(cut, 2, 0, 1)).toEqual([2110, 2111, 2112]);
  });
});

describe('KvBatch with start-aligned rows (GroupQueryAttention)', () => {
  const START = { ...GEOMETRY, rows: 'start' } as const;

  /** A one-row start-aligned batch with `numTokens` coordinate-coded columns (as rowWithTokens). */
  function startRow(seqId: string, numTokens: number): KvBatch {
    const present = Array.from({ length: 4 }, (_, t) =>
      Float32Array.from({ length: 2 * numTokens * 3 }, (_, i) => t * 1000 + i),
    );
    return KvBatch.empty(START, [seqId]).advanced({ form: 'present', tensors: present }, numTokens);
  }

  it('gathers rows from column 0, each its own length, fed as lengths, a prefix mask and new-column indices', () => {
    const batch = KvBatch.gather(START, [
      { batch: startRow('a', 4), seqId: 'a' },
      { batch: startRow('b', 2), seqId: 'b' },
    ]);
    expect(batch.rows).toEqual([
      { seqId: 'a', numTokens: 4, numPad: 0 },
      { seqId: 'b', numTokens: 2, numPad: 0 },
    ]);
    expect(realColumns(batch)).toEqual(
      realColumns(startRow('a', 4)).map((a, t) => [...a, ...realColumns(startRow('b', 2))[t]!]),
    );
    expect([...attentionMaskOf(batch, 1).mask]).toEqual([1n, 1n, 1n, 1n, 1n, 1n, 1n, 1n, 0n, 0n]);
    const { seqlensK, total } = sequenceLengthsOf(batch, 1);
    expect([...seqlensK, total]).toEqual([4, 2, 5]);
    expect([...newColumnIndexOf(batch, 1)]).toEqual([4n, 4n, 2n, 2n]);
  });

  it('writes each row’s new columns right after its own tokens', () => {
    const batch = KvBatch.gather(START, [
      { batch: startRow('a', 4), seqId: 'a' },
      { batch: startRow('b', 2), seqId: 'b' },
    ]);
    const fresh = Array.from({ length: 4 }, (_, t) =>
      Float32Array.from({ length: 2 * 2 * 3 }, (_, i) => -(t * 100 + i) - 1),
    );
    const next = batch.advanced({ form: 'new', tensors: fresh }, 1);
    expect(next.rows.map((r) => r.numTokens)).toEqual([5, 3]);
    const columns = realColumns(next);
    // Row b, head 0 of tensor 0: its two old columns, then the new one (fresh block 2).
    const rowB = columns[0]!.slice(2 * 5 * 3, 2 * 5 * 3 + 3 * 3);
    expect(rowB).toEqual([...realColumns(startRow('b', 2))[0]!.slice(0, 6), -7, -8, -9]);
  });

  it('takes a whole present as it comes, spare columns and all (its new columns follow each row)', () => {
    const row = startRow('a', 2).advanced(
      { form: 'new', tensors: Array.from({ length: 4 }, () => new Float32Array(2 * 3)) },
      1,
    );
    expect(row.width).toBeGreaterThan(row.numColumns);
    expect(row.withoutSpareColumns()).toBe(row);
  });
});

import type { KvGeometry } from '../../model/kv-geometry';
import { kvArray } from '../kv-batch';
import type { KvArray } from '../kv-batch';

/** Consecutive rows of the buffer a forward runs: a contiguous view, since rows are batch-major. */
export interface RowRange {
  first: number;
  count: number;
}

/**
 * A slot's one K/V buffer: per layer a key and a value array shaped [maxRows, K/V heads,
 * capacity, head dim], row r's tokens in its first `numTokensOf(r)` columns (start-aligned, as
 * GroupQueryAttention reads them). ONNX Runtime is its only writer during a forward (the buffer
 * is bound as the past input and the present output at once, bound-runner.ts); this object owns
 * the rows' lengths and every copy into or out of them. Rows are batch-major, so a batch of
 * consecutive rows is a contiguous view: no gather, no relayout.
 */
export class SlotKv {
  /** Per layer key then value, each maxRows × heads × capacity × headDim elements. */
  readonly tensors: KvArray[];
  private readonly numTokens: number[];

  constructor(
    readonly geometry: KvGeometry,
    readonly maxRows: number,
    readonly capacity: number,
  ) {
    if (geometry.rows !== 'start') throw new Error('a slot K/V buffer holds start-aligned rows only');
    const length = maxRows * geometry.numKvHeads * capacity * geometry.headDim;
    this.tensors = Array.from({ length: geometry.numLayers * 2 }, () => kvArray(geometry, length));
    this.numTokens = new Array<number>(maxRows).fill(0);
  }

  /** Bytes the buffer allocates (every row's whole capacity, held or not): what a slot's K/V really costs. */
  get bytes(): number {
    return this.tensors.reduce((sum, tensor) => sum + tensor.byteLength, 0);
  }

  /** Tokens row `row` holds. */
  numTokensOf(row: number): number {
    return this.numTokens[this.checkedRow(row)]!;
  }

  /** The arrays a batch of `rows` binds: views over the buffer (no copy). */
  viewsOf(rows: RowRange): KvArray[] {
    const problem = this.rangeProblem(rows);
    if (problem) throw new Error(problem);
    const rowElements = this.geometry.numKvHeads * this.capacity * this.geometry.headDim;
    return this.tensors.map((tensor) =>
      tensor.subarray(rows.first * rowElements, (rows.first + rows.count) * rowElements),
    );
  }

  /** Why `rows` cannot take `numNew` more tokens each, or null when they can. */
  capacityProblem(rows: RowRange, numNew: number): string | null {
    const problem = this.rangeProblem(rows);
    if (problem) return problem;
    for (let row = rows.first; row < rows.first + rows.count; row++)
      if (this.numTokens[row]! + numNew > this.capacity)
        return `row ${row} holds ${this.numTokens[row]} tokens: ${numNew} more exceed the capacity ${this.capacity}`;
    return null;
  }

  /** Records a forward's new columns (ONNX Runtime wrote them in place). */
  advance(rows: RowRange, numNew: number): void {
    const problem = this.capacityProblem(rows, numNew);
    if (problem) throw new Error(problem);
    for (let row = rows.first; row < rows.first + rows.count; row++) this.numTokens[row]! += numNew;
  }

  /** Empties a row (its columns are overwritten before they are read again). */
  clear(row: number): void {
    this.truncate(row, 0);
  }

  /** Keeps a row's first `numTokens` tokens (a past cut to its pages); the rest become spare columns. */
  truncate(row: number, numTokens: number): void {
    const held = this.numTokensOf(row);
    if (!Number.isInteger(numTokens) || numTokens < 0 || numTokens > held)
      throw new Error(`row ${row} holds ${held} tokens: cannot keep ${numTokens}`);
    this.numTokens[row] = numTokens;
  }

  /** Exchanges two rows' tokens (a batch's rows are brought together this way, one row at a time). */
  swapRows(a: number, b: number): void {
    if (this.checkedRow(a) === this.checkedRow(b)) return;
    const { numKvHeads, headDim } = this.geometry;
    const rowElements = numKvHeads * this.capacity * headDim;
    for (const tensor of this.tensors) {
      const held = tensor.slice(a * rowElements, (a + 1) * rowElements);
      tensor.copyWithin(a * rowElements, b * rowElements, (b + 1) * rowElements);
      tensor.set(held as never, b * rowElements);
    }
    [this.numTokens[a], this.numTokens[b]] = [this.numTokens[b]!, this.numTokens[a]!];
  }

  /** A larger buffer holding this one's rows (the rows beyond them empty); this one is left as it was. */
  grown(maxRows: number, capacity: number): SlotKv {
    if (maxRows < this.maxRows || capacity < this.capacity) throw new Error('grown: a K/V buffer only grows');
    return this.relaid(
      Array.from({ length: this.maxRows }, (_, row) => row),
      maxRows,
      capacity,
    );
  }

  /**
   * A buffer of `maxRows` rows × `capacity` tokens holding rows `keep` (old row `keep[i]` becomes
   * row i, the rest empty): how it shrinks to its live rows or grows. Only held tokens are
   * copied; this one is left as it was.
   */
  relaid(keep: readonly number[], maxRows: number, capacity: number): SlotKv {
    if (keep.length > maxRows) throw new Error(`${keep.length} rows kept in a buffer of ${maxRows}`);
    const next = new SlotKv(this.geometry, maxRows, capacity);
    const { numKvHeads, headDim } = this.geometry;
    keep.forEach((row, target) => {
      const numTokens = this.numTokensOf(row);
      if (numTokens > capacity)
        throw new Error(`row ${row} holds ${numTokens} tokens: more than ${capacity}`);
      next.numTokens[target] = numTokens;
      this.tensors.forEach((tensor, t) => {
        for (let head = 0; head < numKvHeads; head++) {
          const from = (row * numKvHeads + head) * this.capacity * headDim;
          const to = (target * numKvHeads + head) * capacity * headDim;
          next.tensors[t]!.set(tensor.subarray(from, from + numTokens * headDim) as never, to);
        }
      });
    });
    return next;
  }

  /** Copies page `pageIndex` of `row` into `target`, in the page layout `KvBatch.fromPages` reads. */
  copyPageOut(row: number, pageIndex: number, pageSize: number, target: KvArray): void {
    if ((pageIndex + 1) * pageSize > this.numTokensOf(row))
      throw new Error(`page ${pageIndex} of row ${row} is not complete`);
    this.forEachPageBlock(row, pageIndex, pageSize, (tensor, from, to) =>
      target.set(tensor.subarray(from, from + pageSize * this.geometry.headDim) as never, to),
    );
  }

  /** Copies a page into `row` at page `pageIndex`; the row then holds the pages up to it. */
  copyPageIn(row: number, pageIndex: number, pageSize: number, source: KvArray): void {
    if (pageIndex * pageSize !== this.numTokensOf(row))
      throw new Error(
        `row ${row} holds ${this.numTokensOf(row)} tokens: page ${pageIndex} does not follow them`,
      );
    if ((pageIndex + 1) * pageSize > this.capacity) throw new Error(`page ${pageIndex} exceeds the capacity`);
    const blockElements = pageSize * this.geometry.headDim;
    this.forEachPageBlock(row, pageIndex, pageSize, (tensor, at, from) =>
      tensor.set(source.subarray(from, from + blockElements) as never, at),
    );
    this.numTokens[row] = (pageIndex + 1) * pageSize;
  }

  /** Calls `visit(tensor, buffer offset, page offset)` for every (layer tensor, head) block of a page. */
  private forEachPageBlock(
    row: number,
    pageIndex: number,
    pageSize: number,
    visit: (tensor: KvArray, bufferOffset: number, pageOffset: number) => void,
  ): void {
    const { numKvHeads, headDim } = this.geometry;
    const blockElements = numKvHeads * pageSize * headDim;
    this.tensors.forEach((tensor, t) => {
      for (let head = 0; head < numKvHeads; head++) {
        const at = ((row * numKvHeads + head) * this.capacity + pageIndex * pageSize) * headDim;
        visit(tensor, at, t * blockElements + head * pageSize * headDim);
      }
    });
  }

  private rangeProblem({ first, count }: RowRange): string | null {
    if (
      !Number.isInteger(first) ||
      !Number.isInteger(count) ||
      first < 0 ||
      count < 1 ||
      first + count > this.maxRows
    )
      return `rows ${first} … ${first + count - 1} are not among the ${this.maxRows}`;
    return null;
  }

  private checkedRow(row: number): number {
    if (!Number.isInteger(row) || row < 0 || row >= this.maxRows) throw new Error(`no row ${row}`);
    return row;
  }
}

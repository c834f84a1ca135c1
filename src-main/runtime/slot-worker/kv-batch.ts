import { ELEMENT_BYTES } from '../model/onnx-graph/element-types';
import type { KvGeometry } from '../model/kv-geometry';

/**
 * K/V of a batch of sequences as the ONNX graph takes it: per layer, one key and one value
 * array shaped [numRows, numKvHeads, width, headDim]. Rows are aligned as the geometry says:
 * `end`, each row left-padded so its newest token sits in column numColumns − 1 (masked
 * attention); `start`, each row's tokens from column 0, a shorter row's columns after its own
 * tokens unused (GroupQueryAttention, which reads each row's own length). Columns past a row's
 * tokens up to `width` are spare columns that later tokens are written into in place (masked off
 * until then, always finite). Pure array code, no ONNX Runtime. fp16 K/V is held as its 16-bit
 * patterns (Uint16Array) end to end: it is only ever copied, never computed on.
 */

/** One K/V tensor's elements: float32 values or fp16 bit patterns. */
export type KvArray = Float32Array | Uint16Array;

/**
 * What a forward gives back per layer (key, value, …): the whole `present` (past + new columns,
 * shaped like the past plus numNew columns), or only the new tokens' columns ([rows, heads,
 * numNew, head dim]) when the graph has delta outputs (present-deltas.ts).
 */
export interface ForwardKv {
  form: 'present' | 'new';
  tensors: KvArray[];
}

/** Spare columns a batch gets when new columns no longer fit: one relayout per this many tokens. */
export const SPARE_COLUMNS = 64;

/** How far a set of K/V tensors has been written: only the batch at that edge may append in place. */
interface WrittenEdge {
  numColumns: number;
}

/** A zeroed K/V array of `length` elements in the geometry's dtype. */
export function kvArray(geometry: KvGeometry, length: number): KvArray {
  return geometry.kvDtype === 'float16' ? new Uint16Array(length) : new Float32Array(length);
}

/** A K/V view over shared memory (a context page), no copy. */
export function kvView(
  geometry: KvGeometry,
  buffer: ArrayBufferLike,
  byteOffset: number,
  byteLength: number,
): KvArray {
  const length = byteLength / ELEMENT_BYTES[geometry.kvDtype];
  return geometry.kvDtype === 'float16'
    ? new Uint16Array(buffer, byteOffset, length)
    : new Float32Array(buffer, byteOffset, length);
}

/** One row of a batch: which sequence, how many real tokens, how many pad columns before them. */
export interface KvRow {
  seqId: string;
  numTokens: number;
  numPad: number;
}

/**
 * A K/V array whose every element the caller overwrites: skipping the zero-fill halves the
 * memory traffic of assembling a past. Never for padded batches (stale NaN bits under a masked
 * column would still poison the softmax product).
 */
function uninitializedKvArray(geometry: KvGeometry, length: number): KvArray {
  const buffer = Buffer.allocUnsafeSlow(length * ELEMENT_BYTES[geometry.kvDtype]).buffer;
  return geometry.kvDtype === 'float16'
    ? new Uint16Array(buffer, 0, length)
    : new Float32Array(buffer, 0, length);
}

/**
 * The past K/V of the rows of one batch (see the file's comment for the layout): built empty,
 * from context pages or gathered from other batches; rows aligned as the geometry says.
 */
export class KvBatch {
  private constructor(
    readonly geometry: KvGeometry,
    readonly rows: KvRow[],
    readonly numColumns: number,
    /** Per layer: keys then values, index 2*layer (key) and 2*layer+1 (value). */
    readonly tensors: KvArray[],
    /** Columns per row and head in `tensors` (≥ numColumns; the rest is spare columns). */
    readonly width: number = numColumns,
    private readonly edge: WrittenEdge = { numColumns },
  ) {}

  /** A batch of `numRows` sequences with no past (a 0-length column dimension). */
  static empty(geometry: KvGeometry, seqIds: readonly string[]): KvBatch {
    const rows = seqIds.map((seqId) => ({ seqId, numTokens: 0, numPad: 0 }));
    return new KvBatch(
      geometry,
      rows,
      0,
      Array.from({ length: geometry.numLayers * 2 }, () => kvArray(geometry, 0)),
    );
  }

  /**
   * A one-row batch assembled from context pages (each `pageElements` long, in page order), with
   * `numSpareColumns` spare columns after them: enough of them for the prompt's new tokens lets its prefill append
   * in place (too little, and the forward's new columns move the whole past to wider tensors on
   * the first token's path); 0 for a graph that returns a whole present (no spare columns allowed).
   */
  static fromPages(
    geometry: KvGeometry,
    seqId: string,
    pages: readonly KvArray[],
    pageSize: number,
    numSpareColumns = SPARE_COLUMNS,
  ): KvBatch {
    const numColumns = pages.length * pageSize;
    const width = numColumns + numSpareColumns;
    const { numKvHeads, headDim } = geometry;
    const tensors = Array.from({ length: geometry.numLayers * 2 }, () =>
      paddedKvArray(geometry, numKvHeads, numColumns, width),
    );
    const blockFloats = numKvHeads * pageSize * headDim;
    pages.forEach((page, pageIndex) => {
      for (let t = 0; t < tensors.length; t++) {
        for (let head = 0; head < numKvHeads; head++) {
          const from = t * blockFloats + head * pageSize * headDim;
          const to = (head * width + pageIndex * pageSize) * headDim;
          setElements(tensors[t]!, page.subarray(from, from + pageSize * headDim), to);
        }
      }
    });
    return new KvBatch(geometry, [{ seqId, numTokens: numColumns, numPad: 0 }], numColumns, tensors, width);
  }

  /** Builds a batch from rows of other batches, dropping extra padding (used when the batch changes). */
  static gather(geometry: KvGeometry, picks: ReadonlyArray<{ batch: KvBatch; seqId: string }>): KvBatch {
    const sources = picks.map(({ batch, seqId }) => ({ batch, rowIndex: batch.rowIndexOf(seqId) }));
    const numColumns = Math.max(0, ...sources.map(({ batch, rowIndex }) => batch.rows[rowIndex]!.numTokens));
    const { numKvHeads, headDim } = geometry;
    const rowFloats = numKvHeads * numColumns * headDim;
    const tensors = Array.from({ length: geometry.numLayers * 2 }, () =>
      kvArray(geometry, picks.length * rowFloats),
    );
    const rows = sources.map(({ batch, rowIndex }, r) => {
      const source = batch.rows[rowIndex]!;
      const numPad = geometry.rows === 'start' ? 0 : numColumns - source.numTokens;
      for (let t = 0; t < tensors.length; t++) {
        for (let head = 0; head < numKvHeads; head++) {
          const from = batch.offsetOf(rowIndex, head, source.numPad);
          const to = (r * numKvHeads + head) * numColumns * headDim + numPad * headDim;
          setElements(tensors[t]!, batch.tensors[t]!.subarray(from, from + source.numTokens * headDim), to);
        }
      }
      return { seqId: source.seqId, numTokens: source.numTokens, numPad };
    });
    return new KvBatch(geometry, rows, numColumns, tensors);
  }

  /**
   * A one-row batch of the first `numColumns` tokens of `seqId`'s row (a copy): a finished
   * sequence's past trimmed to its completed pages, kept for its conversation's next turn.
   */
  static prefix(batch: KvBatch, seqId: string, numColumns: number, asSeqId = seqId): KvBatch {
    const rowIndex = batch.rowIndexOf(seqId);
    const row = batch.rows[rowIndex]!;
    if (numColumns > row.numTokens)
      throw new Error(`sequence ${seqId} holds ${row.numTokens} tokens, not ${numColumns}`);
    const { numKvHeads, headDim } = batch.geometry;
    const tensors = batch.tensors.map((source) => {
      const target = uninitializedKvArray(batch.geometry, numKvHeads * numColumns * headDim);
      for (let head = 0; head < numKvHeads; head++) {
        const from = batch.offsetOf(rowIndex, head, row.numPad);
        target.set(source.subarray(from, from + numColumns * headDim), head * numColumns * headDim);
      }
      return target;
    });
    return new KvBatch(
      batch.geometry,
      [{ seqId: asSeqId, numTokens: numColumns, numPad: 0 }],
      numColumns,
      tensors,
    );
  }

  /**
   * This one-row, unpadded batch cut to its first `numColumns` tokens, under `seqId`, where it
   * lies: the columns after the cut become spare columns (masked, finite, overwritten by later
   * tokens), so nothing moves. Consumes this batch: only its sole owner may call it.
   */
  cutInPlace(numColumns: number, seqId: string): KvBatch {
    const row = this.rows[0];
    if (this.rows.length !== 1 || row!.numPad !== 0)
      throw new Error('only a one-row, unpadded batch can be cut in place');
    if (numColumns > row!.numTokens)
      throw new Error(`sequence ${row!.seqId} holds ${row!.numTokens} tokens, not ${numColumns}`);
    const rows = [{ seqId, numTokens: numColumns, numPad: 0 }];
    return new KvBatch(this.geometry, rows, numColumns, this.tensors, this.width, { numColumns });
  }

  /** This one-row, unpadded batch under another sequence's id (no copy). */
  renamed(seqId: string): KvBatch {
    if (this.rows.length !== 1 || this.rows[0]!.numPad !== 0)
      throw new Error('only a one-row, unpadded batch can be renamed');
    return new KvBatch(
      this.geometry,
      [{ ...this.rows[0]!, seqId }],
      this.numColumns,
      this.tensors,
      this.width,
      this.edge,
    );
  }

  /** Row index of a sequence; throws when it is not in this batch. */
  rowIndexOf(seqId: string): number {
    const index = this.rows.findIndex((row) => row.seqId === seqId);
    if (index < 0) throw new Error(`sequence ${seqId} is not in this K/V batch`);
    return index;
  }

  /** Dims of each past tensor: [rows, kv heads, width, head dim]. */
  get dims(): [number, number, number, number] {
    return [this.rows.length, this.geometry.numKvHeads, this.width, this.geometry.headDim];
  }

  /**
   * The batch after a forward that added `numNew` columns per row. Given the whole `present`,
   * that becomes the batch (an end-aligned past had no spare columns; a start-aligned present holds
   * each row's new columns after its own tokens). Given only the new columns, each row's are
   * written right after its tokens, into the spare columns in place when this batch is at the
   * tensors' written edge (no other batch appended to them since) and they fit; otherwise
   * everything moves to new tensors with SPARE_COLUMNS spare columns. Earlier batches on the same
   * tensors stay valid for their columns.
   */
  advanced(kv: ForwardKv, numNew: number): KvBatch {
    const rows = this.rows.map((row) => ({ ...row, numTokens: row.numTokens + numNew }));
    const numColumns = this.numColumns + numNew;
    if (kv.form === 'present') return this.presentBatch(kv, rows, numColumns);
    // A past with no columns: the new ones are the whole K/V, taken as they came (no spare columns yet;
    // the first decode step makes it, off the first token's path).
    if (this.width === 0) return new KvBatch(this.geometry, rows, numColumns, kv.tensors);
    const isInPlace = this.edge.numColumns === this.numColumns && numColumns <= this.width;
    const width = isInPlace ? this.width : numColumns + SPARE_COLUMNS;
    const tensors = isInPlace ? this.tensors : this.restrided(width);
    const edge = isInPlace ? this.edge : { numColumns: 0 };
    const { numKvHeads, headDim } = this.geometry;
    for (let t = 0; t < tensors.length; t++) {
      for (let block = 0; block < rows.length * numKvHeads; block++) {
        const fresh = kv.tensors[t]!.subarray(block * numNew * headDim, (block + 1) * numNew * headDim);
        const row = this.rows[Math.floor(block / numKvHeads)]!;
        setElements(tensors[t]!, fresh, (block * width + row.numPad + row.numTokens) * headDim);
      }
    }
    edge.numColumns = numColumns;
    return new KvBatch(this.geometry, rows, numColumns, tensors, width, edge);
  }

  /** The batch a whole `present` makes: its width is the present's own. */
  private presentBatch(kv: ForwardKv, rows: KvRow[], numColumns: number): KvBatch {
    if (this.geometry.rows === 'start') {
      const { numKvHeads, headDim } = this.geometry;
      const width = kv.tensors[0]!.length / (rows.length * numKvHeads * headDim);
      return new KvBatch(this.geometry, rows, numColumns, kv.tensors, width);
    }
    // The graph wrote its new columns after `width`; only a past without spare columns lines them up.
    if (this.width !== this.numColumns)
      throw new Error('a whole present cannot follow a past with spare columns (use withoutSpareColumns)');
    return new KvBatch(this.geometry, rows, numColumns, kv.tensors);
  }

  /**
   * This batch with no spare columns (a copy when it has some): for end-aligned graphs that return a
   * whole `present`, whose new columns follow the past's last column wherever the real tokens
   * end. A start-aligned present follows each row's tokens, spare columns or not: kept as it is.
   */
  withoutSpareColumns(): KvBatch {
    if (this.width === this.numColumns || this.geometry.rows === 'start') return this;
    return new KvBatch(this.geometry, this.rows, this.numColumns, this.restrided(this.numColumns));
  }

  /** New tensors of `width` (≥ numColumns) columns per block: this batch's columns, the rest zeroed. */
  private restrided(width: number): KvArray[] {
    const { numKvHeads, headDim } = this.geometry;
    const numBlocks = this.rows.length * numKvHeads;
    return this.tensors.map((source) => {
      const target = paddedKvArray(this.geometry, numBlocks, this.numColumns, width);
      for (let block = 0; block < numBlocks; block++) {
        const from = block * this.width * headDim;
        setElements(target, source.subarray(from, from + this.numColumns * headDim), block * width * headDim);
      }
      return target;
    });
  }

  /** Copies page `pageIndex` of a row out, in the page layout `fromPages` reads. */
  copyPage(seqId: string, pageIndex: number, pageSize: number, target: KvArray): void {
    const rowIndex = this.rowIndexOf(seqId);
    const row = this.rows[rowIndex]!;
    if ((pageIndex + 1) * pageSize > row.numTokens)
      throw new Error(`page ${pageIndex} of ${seqId} is not complete`);
    const { numKvHeads, headDim } = this.geometry;
    const blockFloats = numKvHeads * pageSize * headDim;
    for (let t = 0; t < this.tensors.length; t++) {
      for (let head = 0; head < numKvHeads; head++) {
        const from = this.offsetOf(rowIndex, head, row.numPad + pageIndex * pageSize);
        setElements(
          target,
          this.tensors[t]!.subarray(from, from + pageSize * headDim),
          t * blockFloats + head * pageSize * headDim,
        );
      }
    }
  }

  private offsetOf(rowIndex: number, head: number, column: number): number {
    const { numKvHeads, headDim } = this.geometry;
    return ((rowIndex * numKvHeads + head) * this.width + column) * headDim;
  }
}

/**
 * Blocks of `width` columns whose first `numColumns` the caller overwrites; the rest (spare columns,
 * masked) is zeroed, since stale NaN bits under a masked column would still poison the softmax.
 */
function paddedKvArray(geometry: KvGeometry, numBlocks: number, numColumns: number, width: number): KvArray {
  const { headDim } = geometry;
  const array = uninitializedKvArray(geometry, numBlocks * width * headDim);
  for (let block = 0; block < numBlocks; block++)
    array.fill(0, (block * width + numColumns) * headDim, (block + 1) * width * headDim);
  return array;
}

/** Copies K/V elements between arrays of one dtype (a mismatch is a bug: throws). */
function setElements(target: KvArray, source: KvArray, offset: number): void {
  if (target.constructor !== source.constructor)
    throw new Error(`K/V element type mismatch: ${source.constructor.name} into ${target.constructor.name}`);
  (target as Float32Array).set(source as Float32Array, offset);
}

import type { FloatType } from '../model/decoder-io';

/**
 * K/V of a batch of sequences as the ONNX graph takes it: per layer, one key and one value
 * array shaped [numRows, numKvHeads, numColumns, headDim], each row left-padded so every
 * row's newest token sits in the last column. Pure array code, no ONNX Runtime. fp16 K/V is
 * held as its 16-bit patterns (Uint16Array) end to end: it is only ever copied, never computed on.
 */
export interface KvGeometry {
  numLayers: number;
  numKvHeads: number;
  headDim: number;
  /** The graph's past/present element type. */
  kvDtype: FloatType;
}

/** One K/V tensor's elements: float32 values or fp16 bit patterns. */
export type KvArray = Float32Array | Uint16Array;

const BYTES_PER_ELEMENT: Record<FloatType, number> = { float32: 4, float16: 2 };

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
  const length = byteLength / BYTES_PER_ELEMENT[geometry.kvDtype];
  return geometry.kvDtype === 'float16'
    ? new Uint16Array(buffer, byteOffset, length)
    : new Float32Array(buffer, byteOffset, length);
}

/** Bytes in one context page: `pageElements` in the geometry's dtype (the unit of every K/V budget). */
export function pageBytes(geometry: KvGeometry, pageSize: number): number {
  return pageElements(geometry, pageSize) * BYTES_PER_ELEMENT[geometry.kvDtype];
}

/** One row of a batch: which sequence, how many real tokens, how many pad columns before them. */
export interface KvRow {
  seqId: string;
  numTokens: number;
  numPad: number;
}

/** Elements in one context page: every layer's key and value for `pageSize` tokens. */
export function pageElements(geometry: KvGeometry, pageSize: number): number {
  return geometry.numLayers * 2 * geometry.numKvHeads * pageSize * geometry.headDim;
}

/**
 * A K/V array whose every element the caller overwrites: skipping the zero-fill halves the
 * memory traffic of assembling a past. Never for padded batches (stale NaN bits under a masked
 * column would still poison the softmax product).
 */
function uninitializedKvArray(geometry: KvGeometry, length: number): KvArray {
  const buffer = Buffer.allocUnsafeSlow(length * BYTES_PER_ELEMENT[geometry.kvDtype]).buffer;
  return geometry.kvDtype === 'float16'
    ? new Uint16Array(buffer, 0, length)
    : new Float32Array(buffer, 0, length);
}

/**
 * The past K/V of the rows of one batch (see the file's comment for the layout): built empty,
 * from context pages or gathered from other batches; rows are left-padded to a common width.
 */
export class KvBatch {
  private constructor(
    readonly geometry: KvGeometry,
    readonly rows: KvRow[],
    readonly numColumns: number,
    /** Per layer: keys then values, index 2*layer (key) and 2*layer+1 (value). */
    readonly tensors: KvArray[],
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

  /** A one-row batch assembled from context pages (each `pageElements` long, in page order). */
  static fromPages(
    geometry: KvGeometry,
    seqId: string,
    pages: readonly KvArray[],
    pageSize: number,
  ): KvBatch {
    const numColumns = pages.length * pageSize;
    const { numKvHeads, headDim } = geometry;
    const tensors = Array.from({ length: geometry.numLayers * 2 }, () =>
      uninitializedKvArray(geometry, numKvHeads * numColumns * headDim),
    );
    const blockFloats = numKvHeads * pageSize * headDim;
    pages.forEach((page, pageIndex) => {
      for (let t = 0; t < tensors.length; t++) {
        for (let head = 0; head < numKvHeads; head++) {
          const from = t * blockFloats + head * pageSize * headDim;
          const to = (head * numColumns + pageIndex * pageSize) * headDim;
          setElements(tensors[t]!, page.subarray(from, from + pageSize * headDim), to);
        }
      }
    });
    return new KvBatch(geometry, [{ seqId, numTokens: numColumns, numPad: 0 }], numColumns, tensors);
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
      const numPad = numColumns - source.numTokens;
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
   * This one-row, unpadded batch cut to its first `numColumns` tokens in its own memory, under
   * `seqId`: each head's block moves down to its new stride (a memmove, no allocation, so no
   * fresh pages to fault in). Consumes this batch: only its sole owner may call it.
   */
  cutInPlace(numColumns: number, seqId: string): KvBatch {
    const row = this.rows[0];
    if (this.rows.length !== 1 || row!.numPad !== 0)
      throw new Error('only a one-row, unpadded batch can be cut in place');
    if (numColumns > row!.numTokens)
      throw new Error(`sequence ${row!.seqId} holds ${row!.numTokens} tokens, not ${numColumns}`);
    const { numKvHeads, headDim } = this.geometry;
    const tensors = this.tensors.map((tensor) => {
      // Heads in order: each target block starts at or before its source, so nothing unread is overwritten.
      for (let head = 1; head < numKvHeads; head++) {
        const from = head * this.numColumns * headDim;
        tensor.copyWithin(head * numColumns * headDim, from, from + numColumns * headDim);
      }
      return tensor.subarray(0, numKvHeads * numColumns * headDim);
    });
    return new KvBatch(this.geometry, [{ seqId, numTokens: numColumns, numPad: 0 }], numColumns, tensors);
  }

  /** This one-row, unpadded batch under another sequence's id (no copy). */
  renamed(seqId: string): KvBatch {
    if (this.rows.length !== 1 || this.rows[0]!.numPad !== 0)
      throw new Error('only a one-row, unpadded batch can be renamed');
    return new KvBatch(this.geometry, [{ ...this.rows[0]!, seqId }], this.numColumns, this.tensors);
  }

  /** Row index of a sequence; throws when it is not in this batch. */
  rowIndexOf(seqId: string): number {
    const index = this.rows.findIndex((row) => row.seqId === seqId);
    if (index < 0) throw new Error(`sequence ${seqId} is not in this K/V batch`);
    return index;
  }

  /** Dims of each past tensor: [rows, kv heads, columns, head dim]. */
  get dims(): [number, number, number, number] {
    return [this.rows.length, this.geometry.numKvHeads, this.numColumns, this.geometry.headDim];
  }

  /** attention_mask for a forward adding `numNew` tokens per row: 0 over padding, 1 elsewhere. */
  attentionMask(numNew: number): BigInt64Array {
    const width = this.numColumns + numNew;
    const mask = new BigInt64Array(this.rows.length * width).fill(1n);
    this.rows.forEach((row, r) => mask.fill(0n, r * width, r * width + row.numPad));
    return mask;
  }

  /** position_ids for a forward adding `numNew` tokens per row: each row continues its own count. */
  positionIds(numNew: number): BigInt64Array {
    const positions = new BigInt64Array(this.rows.length * numNew);
    this.rows.forEach((row, r) => {
      for (let j = 0; j < numNew; j++) positions[r * numNew + j] = BigInt(row.numTokens + j);
    });
    return positions;
  }

  /** The batch after a forward: the graph's `present` tensors hold past + `numNew` columns. */
  advanced(present: KvArray[], numNew: number): KvBatch {
    const rows = this.rows.map((row) => ({ ...row, numTokens: row.numTokens + numNew }));
    return new KvBatch(this.geometry, rows, this.numColumns + numNew, present);
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
    return ((rowIndex * numKvHeads + head) * this.numColumns + column) * headDim;
  }
}

/** Copies K/V elements between arrays of one dtype (a mismatch is a bug: throws). */
function setElements(target: KvArray, source: KvArray, offset: number): void {
  if (target.constructor !== source.constructor)
    throw new Error(`K/V element type mismatch: ${source.constructor.name} into ${target.constructor.name}`);
  (target as Float32Array).set(source as Float32Array, offset);
}

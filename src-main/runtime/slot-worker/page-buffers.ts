import type { PageData } from '../pages/page-data';

/** At most this many bytes of spare page buffers wait in a worker (beside its K/V). */
export const MAX_SPARE_PAGE_BYTES = 16 * 1024 * 1024;

/**
 * Worker side: shared buffers for the context pages a step completes, one buffer per page,
 * allocated ahead while the worker is idle. Once ONNX Runtime has freed its large outputs,
 * glibc serves a fresh few-MB buffer from its heap and zeroes it: 0.3 ms for a 128-token
 * prompt's pages, measured on the first token's path. Spares stay below MAX_SPARE_PAGE_BYTES.
 */
export class PageBuffers {
  private spares: SharedArrayBuffer[] = [];
  /** Pages the largest capture took, so the next one of that size finds its buffers ready. */
  private numWanted = 0;

  constructor(private readonly maxSpareBytes = MAX_SPARE_PAGE_BYTES) {}

  /** Bytes held in spare buffers now. */
  get spareBytes(): number {
    return this.spares.reduce((sum, buffer) => sum + buffer.byteLength, 0);
  }

  /** `numPages` page buffers of `byteLength` bytes each: spares first, the rest allocated now. */
  take(numPages: number, byteLength: number): PageData[] {
    if (this.spares[0]?.byteLength !== byteLength) this.spares = [];
    this.numWanted = Math.max(this.numWanted, numPages);
    const taken = this.spares.splice(0, numPages);
    while (taken.length < numPages) taken.push(new SharedArrayBuffer(byteLength));
    return taken.map((buffer) => ({ buffer, byteOffset: 0, byteLength }));
  }

  /** Allocates spares up to the largest capture seen (within the byte cap). Call when idle. */
  refill(byteLength: number): void {
    if (this.spares[0]?.byteLength !== byteLength) this.spares = [];
    const maxPages = Math.floor(this.maxSpareBytes / byteLength);
    const numPages = Math.min(this.numWanted, maxPages);
    while (this.spares.length < numPages) this.spares.push(new SharedArrayBuffer(byteLength));
  }
}

/**
 * Where a page's K/V floats live: a slice of shared memory. The slot worker gives each page a
 * buffer of its own, allocated ahead while idle (slot-worker/page-buffers.ts), so a page's memory
 * goes when the page does; `byteLength` is the page's own size, the unit of every budget.
 */
export interface PageData {
  buffer: SharedArrayBuffer;
  byteOffset: number;
  byteLength: number;
}

/**
 * Where a page's K/V floats live: a slice of shared memory. Pages completed in one step share
 * one buffer (allocating one slab is ~30× cheaper than one buffer per page); `byteLength` is
 * the page's own size, the unit of every budget.
 */
export interface PageData {
  buffer: SharedArrayBuffer;
  byteOffset: number;
  byteLength: number;
}

import { describe, expect, it } from 'vitest';
import { PageBuffers } from '../../../../src-main/runtime/slot-worker/page-buffers';

describe('PageBuffers', () => {
  it('allocates what it lacks, one buffer per page', () => {
    const buffers = new PageBuffers();
    const pages = buffers.take(3, 64);
    expect(pages.map((p) => [p.byteOffset, p.byteLength, p.buffer.byteLength])).toEqual([
      [0, 64, 64],
      [0, 64, 64],
      [0, 64, 64],
    ]);
    expect(new Set(pages.map((p) => p.buffer)).size).toBe(3);
  });

  it('refills up to the largest capture and hands those spares out next', () => {
    const buffers = new PageBuffers();
    buffers.take(4, 64);
    buffers.take(2, 64);
    buffers.refill(64);
    expect(buffers.spareBytes).toBe(4 * 64);
    const spares = buffers.take(3, 64);
    expect(buffers.spareBytes).toBe(64);
    buffers.refill(64);
    expect(buffers.take(4, 64).map((p) => p.buffer)).not.toContain(spares[0]!.buffer);
  });

  it('keeps spares under its byte cap', () => {
    const buffers = new PageBuffers(200);
    buffers.take(10, 64);
    buffers.refill(64);
    expect(buffers.spareBytes).toBe(3 * 64);
  });

  it('drops spares of another page size instead of handing them out', () => {
    const buffers = new PageBuffers();
    buffers.take(2, 64);
    buffers.refill(64);
    const pages = buffers.take(2, 128);
    expect(pages.every((p) => p.buffer.byteLength === 128)).toBe(true);
    expect(buffers.spareBytes).toBe(0);
  });
});

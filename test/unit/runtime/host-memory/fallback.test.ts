import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadHostMemory } from '../../../../src-main/runtime/host-memory/loader';
import { slotPinningJson } from '../../../../src-main/runtime/host-memory/slot-pinning';

const dir = mkdtempSync(join(tmpdir(), 'ff-hm-fallback-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('host memory: forced fallback', () => {
  const memory = loadHostMemory({ forceFallback: true });

  it('reports itself as the fallback with a reason, never as locked', () => {
    expect(memory.kind).toBe('fallback');
    const caps = memory.capabilities();
    expect(caps).toMatchObject({
      isNativeLoaded: false,
      pageSize: null,
      memlockLimitBytes: null,
      lockedBytes: null,
      isCudaAvailable: false,
    });
    expect(caps.nativeReason).toMatch(/forced fallback/);
  });

  it('allocates a zeroed, unlocked buffer that releases once', () => {
    const buffer = memory.allocate(1 << 20, { lock: true });
    expect(buffer.bytes.length).toBe(1 << 20);
    expect(buffer.bytes.every((b) => b === 0)).toBe(true);
    expect(buffer).toMatchObject({
      isLocked: false,
      lockedBytes: 0,
      backing: 'js',
      timings: null,
      isReleased: false,
    });
    expect(buffer.lockReason).toMatch(/native addon/);
    expect(buffer.residency()).toBeNull();
    expect(buffer.release()).toBe(true);
    expect(buffer.release()).toBe(false);
    expect(buffer.isReleased).toBe(true);
    expect(buffer.bytes.length).toBe(0);
  });

  it('reads a file into a buffer with the same bytes, in small chunks too', async () => {
    const path = join(dir, 'data.bin');
    const data = Buffer.from(Array.from({ length: 100_000 }, (_, i) => i % 251));
    writeFileSync(path, data);
    const startedAt = performance.now();
    const buffer = await memory.readFileInto(path, { lock: true, willNeed: true, chunkBytes: 4096 });
    const elapsedMs = performance.now() - startedAt;
    expect(Buffer.from(buffer.bytes).equals(data)).toBe(true);
    expect(buffer.isLocked).toBe(false);
    // The read is timed inside the call: more than nothing, no longer than the call timed around it.
    expect(buffer.timings!.readMs).toBeGreaterThan(0);
    expect(buffer.timings!.readMs).toBeLessThanOrEqual(elapsedMs);
    buffer.release();
  });

  it('reports residency as unknown and hints as not applied, but still throws for a missing file', async () => {
    const path = join(dir, 'small.bin');
    writeFileSync(path, 'x');
    expect(memory.residency(path)).toBeNull();
    await expect(memory.adviseWillNeed(path)).resolves.toEqual({
      isApplied: false,
      reason: expect.stringMatching(/native addon/),
    });
    expect(memory.adviseDontNeed(path).isApplied).toBe(false);
    expect(memory.setMemlockLimit(1 << 20).isApplied).toBe(false);
    expect(memory.trimHeap()).toEqual({ isApplied: false, reason: expect.stringMatching(/native addon/) });
    expect(() => memory.residency(join(dir, 'missing.bin'))).toThrow(/ENOENT/);
    await expect(memory.readFileInto(join(dir, 'missing.bin'))).rejects.toThrow(/ENOENT/);
  });

  it('fills the slot JSON shape', () => {
    const buffer = memory.allocate(16);
    expect(slotPinningJson(buffer)).toEqual({
      pinned: false,
      pinned_reason: buffer.lockReason,
      locked_bytes: 0,
      resident_pct: null,
    });
  });

  it('rejects a bad byte count', () => {
    expect(() => memory.allocate(-1)).toThrow(RangeError);
    expect(() => memory.allocate(1.5)).toThrow(RangeError);
  });
});

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadHostMemory } from '../../../src-main/runtime/host-memory/loader';
import { slotPinningJson } from '../../../src-main/runtime/host-memory/slot-pinning';
import { nativeSkipReason } from './native-available';

const dir = mkdtempSync(join(tmpdir(), 'ff-hm-native-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const KIB = 1024;

describe.skipIf(nativeSkipReason !== null)('host memory: native buffers', () => {
  const memory = loadHostMemory();

  it('trims the C heap with glibc, and says why not elsewhere', () => {
    const header = (process.report.getReport() as { header: { glibcVersionRuntime?: string } }).header;
    const result = memory.trimHeap();
    if (header.glibcVersionRuntime) expect(result.reason).toMatch(/^(trimmed|nothing to trim)$/);
    else expect(result).toEqual({ isApplied: false, reason: 'not available on this platform' });
  });

  it('loads the addon and reports its capabilities', () => {
    const caps = memory.capabilities();
    expect(memory.kind).toBe('native');
    expect(caps.isNativeLoaded).toBe(true);
    expect(caps.pageSize).toBeGreaterThanOrEqual(4096);
    expect(caps.memlockLimitBytes === 'unlimited' || typeof caps.memlockLimitBytes === 'number').toBe(true);
    expect(caps.isExternalBufferAllowed).toBe(true); // plain Node: no V8 memory cage
    if (!caps.isCudaAvailable) expect(caps.cudaReason).toMatch(/cuda runtime (not found|found but)/);
  });

  for (const backing of ['external', 'engine'] as const) {
    it(`${backing}: allocates zeroed, locked, fully resident memory and releases it once`, () => {
      const lockedBefore = memory.capabilities().lockedBytes ?? 0;
      const buffer = memory.allocate(256 * KIB + 100, { lock: true, backing });
      expect(buffer.backing).toBe(backing);
      expect(buffer.byteLength).toBe(256 * KIB + 100);
      expect(buffer.bytes.every((b) => b === 0)).toBe(true);
      expect(buffer).toMatchObject({ isLocked: true, lockReason: 'locked', isReleased: false });
      expect(buffer.lockedBytes).toBeGreaterThan(0);
      expect(memory.capabilities().lockedBytes).toBe(lockedBefore + buffer.lockedBytes);
      expect(buffer.residency()?.residentPct).toBe(100); // mlock faults every page in
      buffer.bytes[buffer.byteLength - 1] = 42;
      expect(buffer.bytes[buffer.byteLength - 1]).toBe(42);
      const view = buffer.bytes;
      expect(buffer.release()).toBe(true);
      expect(buffer.release()).toBe(false);
      expect(view.length).toBe(0); // detached before the memory went away: no use-after-free
      expect(buffer).toMatchObject({ isLocked: false, isReleased: true, byteLength: 0 });
      expect(buffer.residency()).toBeNull();
      expect(memory.capabilities().lockedBytes).toBe(lockedBefore);
    });
  }

  it('locks a large (huge-page aligned) buffer whole and counts it in the process', () => {
    const lockedBefore = memory.capabilities().lockedBytes ?? 0;
    const numBytes = 8 * 1024 * KIB + 5;
    const buffer = memory.allocate(numBytes, { lock: true, lockBeyondLimit: true });
    if (!buffer.isLocked) return; // unprivileged and over RLIMIT_MEMLOCK: covered by memlock-limit.test
    const pageSize = memory.capabilities().pageSize!;
    expect(buffer.lockedBytes).toBe(Math.ceil(numBytes / pageSize) * pageSize);
    expect(memory.capabilities().lockedBytes).toBe(lockedBefore + buffer.lockedBytes);
    expect(buffer.residency()).toMatchObject({ residentBytes: numBytes, residentPct: 100 });
    buffer.release();
    expect(memory.capabilities().lockedBytes).toBe(lockedBefore);
  });

  it('gives an unlocked buffer the reason when no lock was asked for', () => {
    const buffer = memory.allocate(4 * KIB);
    expect(buffer).toMatchObject({
      isLocked: false,
      lockReason: 'lock not requested',
      lockedBytes: 0,
      cudaReason: 'cuda registration not requested',
    });
    expect(slotPinningJson(buffer)).toMatchObject({
      pinned: false,
      pinned_reason: 'lock not requested',
      locked_bytes: 0,
    });
    buffer.release();
  });

  it('records why CUDA registration did not happen instead of failing', () => {
    const buffer = memory.allocate(64 * KIB, { registerCuda: true });
    if (buffer.isCudaRegistered) expect(buffer.cudaReason).toBe('registered');
    else
      expect(buffer.cudaReason).toMatch(
        /^(cuda runtime not found|cuda runtime found but|cudaHostRegister failed)/,
      );
    buffer.release();
  });

  it('handles zero-byte buffers', () => {
    const buffer = memory.allocate(0, { lock: true });
    expect(buffer.byteLength).toBe(0);
    expect(buffer.isLocked).toBe(false);
    expect(buffer.release()).toBe(true);
  });

  it('reads a file into a locked buffer byte for byte, with timings, for both backings', async () => {
    const path = join(dir, 'weights.bin');
    const data = Buffer.alloc(3 * 1024 * KIB + 17);
    for (let i = 0; i < data.length; i += 1) data[i] = (i * 31) % 256;
    writeFileSync(path, data);
    for (const backing of ['external', 'engine'] as const) {
      const buffer = await memory.readFileInto(path, {
        lock: true,
        willNeed: true,
        chunkBytes: 1024 * KIB,
        backing,
      });
      expect(Buffer.from(buffer.bytes).equals(readFileSync(path))).toBe(true);
      expect(buffer.isLocked).toBe(true);
      expect(buffer.timings).toMatchObject({
        lockMs: expect.any(Number),
        adviseMs: expect.any(Number),
        readMs: expect.any(Number),
      });
      expect(slotPinningJson(buffer)).toEqual({
        pinned: true,
        pinned_reason: 'locked',
        locked_bytes: buffer.lockedBytes,
        resident_pct: 100,
      });
      buffer.release();
    }
  });

  it('reads an empty file, and rejects a missing one with the path in the message', async () => {
    const empty = join(dir, 'empty.bin');
    writeFileSync(empty, '');
    const buffer = await memory.readFileInto(empty, { lock: true });
    expect(buffer.byteLength).toBe(0);
    await expect(memory.readFileInto(join(dir, 'missing.bin'))).rejects.toThrow(/missing\.bin/);
    expect(() => memory.residency(join(dir, 'missing.bin'))).toThrow(/No such file/);
  });
});

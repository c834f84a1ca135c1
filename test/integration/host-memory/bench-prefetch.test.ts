import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { run } from '../../../bench/prefetch';

const dir = mkdtempSync(join(tmpdir(), 'ff-hm-bench-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bench prefetch', () => {
  it('prints JSON with four arms, ratios and the slot pinning shape', async () => {
    const path = join(dir, 'w.bin');
    writeFileSync(path, Buffer.alloc(2 * 1024 * 1024, 3));
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      expect(await run(['--file', path, '--reps', '2', '--json'])).toBe(0);
      const result = JSON.parse(String(log.mock.calls.at(-1)?.[0])) as {
        arms: Array<{ arm: string; total: { numSamples: number }; slot: Record<string, unknown> }>;
        ratios: Record<string, unknown>;
        pageCache: { note: string };
      };
      expect(result.arms.map((a) => a.arm)).toEqual(['plain', 'willneed', 'locked', 'locked+willneed']);
      for (const arm of result.arms) {
        expect(arm.total.numSamples).toBe(2);
        expect(Object.keys(arm.slot).sort()).toEqual([
          'locked_bytes',
          'pinned',
          'pinned_reason',
          'resident_pct',
        ]);
      }
      expect(Object.keys(result.ratios)).toEqual(['willneed/plain', 'locked/plain', 'locked+willneed/plain']);
      expect(result.pageCache.note).toEqual(expect.any(String));
    } finally {
      log.mockRestore();
    }
  });

  it('rejects a bad --reps', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(await run(['--reps', '0'])).toBe(2);
    error.mockRestore();
  });
});

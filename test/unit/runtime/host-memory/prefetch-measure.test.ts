import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadHostMemory } from '../../../../src-main/runtime/host-memory/loader';
import {
  armsForRep,
  measureColdPrefetch,
  PREFETCH_ARMS,
  summarizeMs,
} from '../../../../src-main/runtime/host-memory/prefetch-measure';

const dir = mkdtempSync(join(tmpdir(), 'ff-hm-measure-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('prefetch measurement helpers', () => {
  it('uses nearest-rank percentiles', () => {
    expect(summarizeMs([10, 9, 8, 7, 6, 5, 4, 3, 2, 1])).toMatchObject({ medianMs: 5, p95Ms: 10 });
    expect(summarizeMs([7])).toMatchObject({ medianMs: 7, p95Ms: 7 });
    expect(summarizeMs([]).medianMs).toBeNaN();
    expect(summarizeMs([3, 1, 2])).toEqual({ numSamples: 3, medianMs: 2, p95Ms: 3, minMs: 1, maxMs: 3 });
  });

  it('rotates the arm order so each arm takes each position once per cycle', () => {
    const positions = new Map<string, Set<number>>();
    for (let rep = 0; rep < PREFETCH_ARMS.length; rep += 1) {
      armsForRep(rep).forEach((arm, i) =>
        positions.set(arm.name, (positions.get(arm.name) ?? new Set()).add(i)),
      );
    }
    for (const arm of PREFETCH_ARMS) expect(positions.get(arm.name)?.size).toBe(PREFETCH_ARMS.length);
  });

  it('measures with the fallback: residency unknown, never pinned, buffer released', async () => {
    const path = join(dir, 'w.bin');
    writeFileSync(path, Buffer.alloc(64 * 1024, 7));
    const startedAt = performance.now();
    const sample = await measureColdPrefetch(
      loadHostMemory({ forceFallback: true }),
      path,
      PREFETCH_ARMS[2]!,
    );
    const elapsedMs = performance.now() - startedAt;
    expect(sample).toMatchObject({ arm: 'locked', residentPctBefore: null, isCold: null });
    expect(sample.slot).toMatchObject({ pinned: false, locked_bytes: 0, resident_pct: null });
    // Timed inside the call: no longer than the call timed around it.
    expect(sample.totalMs).toBeGreaterThan(0);
    expect(sample.totalMs).toBeLessThanOrEqual(elapsedMs);
  });
});

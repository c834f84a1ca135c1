import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const FIXTURE = fileURLToPath(new URL('./fixtures/convert-peak.ts', import.meta.url));

describe('GGUF conversion memory', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ff-convert-peak-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('holds one large tensor at a time: an untied head converts without its embedding still held', () => {
    const result = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', FIXTURE, dir], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    if (result.status !== 0) throw new Error(`fixture failed (${result.status}): ${result.stderr}`);
    const { peakLiveBytes, largestTensorBytes } = JSON.parse(result.stdout.trim().split('\n').pop()!) as {
      peakLiveBytes: number;
      largestTensorBytes: number;
    };
    console.log(
      `peak live ${(peakLiveBytes / 1e6).toFixed(1)} MB; largest tensor ${(largestTensorBytes / 1e6).toFixed(1)} MB`,
    );
    // The embedding and the head are 16 MB each, every other tensor under 0.2 MB: holding both reads as 2×.
    // The measure sees the tensor being read (a figure of 0 would pass the bound and prove nothing).
    expect(peakLiveBytes).toBeGreaterThan(0.9 * largestTensorBytes);
    expect(peakLiveBytes).toBeLessThan(1.3 * largestTensorBytes);
  }, 120_000);
});

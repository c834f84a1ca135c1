import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { loadHostMemory } from '../../../src-main/runtime/host-memory/loader';
import { nativeSkipReason } from './native-available';

const dir = mkdtempSync(join(tmpdir(), 'ff-hm-worker-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function startWorker(path: string): Worker {
  const entry = new URL('./fixtures/worker-thread.ts', import.meta.url).href;
  const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(bootstrap, { eval: true, workerData: { path } });
}

describe.skipIf(nativeSkipReason !== null)('host memory: in a worker thread', () => {
  it('loads per thread, locks, and frees what the thread left behind when it exits', async () => {
    const memory = loadHostMemory();
    const lockedBefore = memory.capabilities().lockedBytes ?? 0;
    const path = join(dir, 'w.bin');
    writeFileSync(path, Buffer.alloc(1024 * 1024, 0xab));
    const mine = memory.allocate(64 * 1024, { lock: true }); // the main thread uses it at the same time
    const worker = startWorker(path);
    const report = await new Promise<Record<string, unknown>>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    expect(report).toMatchObject({
      kind: 'native',
      firstByte: 0xab,
      byteLength: 1024 * 1024,
      isLocked: true,
      isReleased: true,
    });
    expect(report.lockedBytesInProcess).toBe(lockedBefore + 64 * 1024 + 2 * 1024 * 1024);
    await new Promise((resolve) => worker.once('exit', resolve));
    // Thread teardown runs the finalizers: the kept buffer is unlocked and unmapped.
    expect(memory.capabilities().lockedBytes).toBe(lockedBefore + 64 * 1024);
    mine.release();
    expect(memory.capabilities().lockedBytes).toBe(lockedBefore);
  });
});

import type { Worker } from 'node:worker_threads';
import { spawnWorker } from '../../threads/spawn-worker';

/**
 * Starts a slot worker: the bundle's `slot-worker.js`, or from source the TypeScript entry
 * (threads/ knows both ways).
 */
export function spawnSlotWorker(): Worker {
  return spawnWorker('slot-worker', new URL('./worker-entry.ts', import.meta.url));
}

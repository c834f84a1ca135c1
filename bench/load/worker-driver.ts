import { Worker } from 'node:worker_threads';
import type { Target } from './client';
import type { PhaseInput, RequestRecord } from './driver';

type WorkerMessage =
  | { type: 'record'; record: RequestRecord }
  | { type: 'done'; records: RequestRecord[] }
  | { type: 'failed'; message: string };

/**
 * Runs a phase in a client worker thread (see client-worker.ts). From source the worker
 * registers tsx's loader first, since workers do not inherit the parent's loader hooks.
 */
export function runPhaseInWorker(
  target: Target,
  input: PhaseInput,
  onRecord: (record: RequestRecord) => void,
): Promise<RequestRecord[]> {
  const entry = new URL('./client-worker.ts', import.meta.url).href;
  const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`;
  const worker = new Worker(bootstrap, { eval: true });
  return new Promise((resolve, reject) => {
    worker.on('message', (message: WorkerMessage) => {
      if (message.type === 'record') return onRecord(message.record);
      void worker.terminate();
      if (message.type === 'done') resolve(message.records);
      else reject(new Error(`load client failed: ${message.message}`));
    });
    worker.once('error', reject);
    worker.once('exit', (code) =>
      reject(new Error(`load client worker exited (code ${code}) before finishing`)),
    );
    worker.postMessage({ target, input });
  });
}

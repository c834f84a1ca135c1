import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * Starts a slot worker. In a bundle (electron-vite) the entry is built next to the main
 * bundle as `engine-worker.js`; from source (tsx, vitest) a one-line bootstrap registers
 * tsx's loader inside the worker (workers do not inherit the parent's loader hooks) and
 * imports the TypeScript entry.
 */
export function spawnSlotWorker(): Worker {
  const bundled = fileURLToPath(new URL('./engine-worker.js', import.meta.url));
  if (existsSync(bundled)) return new Worker(bundled);
  const entry = new URL('./worker-entry.ts', import.meta.url).href;
  const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(bootstrap, { eval: true });
}

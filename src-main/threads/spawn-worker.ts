import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { WorkerOptions } from 'node:worker_threads';

/**
 * Starts a worker thread from a TypeScript entry. In a bundle (electron-vite) the entry is
 * built beside the main bundle as `<bundledName>.js` (this module may sit in `chunks/`, so one
 * folder up is tried too); from source (tsx, vitest) a one-line bootstrap registers tsx's
 * loader inside the worker (workers do not inherit the parent's loader hooks) and imports the
 * TypeScript entry at `sourceEntry`.
 */
export function spawnWorker(bundledName: string, sourceEntry: URL, options: WorkerOptions = {}): Worker {
  for (const relative of [`./${bundledName}.js`, `../${bundledName}.js`]) {
    const bundled = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(bundled)) return new Worker(bundled, options);
  }
  const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(sourceEntry.href)}); })`;
  return new Worker(bootstrap, { ...options, eval: true });
}

import { fileURLToPath } from 'node:url';
import { build } from 'electron-vite';

// Build the three bundles once per e2e run, so the browser always loads the renderer as the
// working tree has it (a stale out/renderer would test yesterday's code).
export default async function setup(): Promise<void> {
  await build({ root: fileURLToPath(new URL('../..', import.meta.url)), logLevel: 'warn' });
}

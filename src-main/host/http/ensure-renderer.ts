import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * Makes sure the built renderer exists, building the app's three bundles with electron-vite
 * (a dev dependency, loaded only when needed) when index.html is missing. Returns whether it
 * had to build.
 */
export async function ensureRendererBuilt(rendererDir: string, repoRoot: string): Promise<boolean> {
  if (existsSync(path.join(rendererDir, 'index.html'))) return false;
  const { build } = await import('electron-vite');
  await build({ root: repoRoot, logLevel: 'warn' });
  if (!existsSync(path.join(rendererDir, 'index.html'))) {
    throw new Error(`electron-vite build finished but ${rendererDir}/index.html is missing`);
  }
  return true;
}

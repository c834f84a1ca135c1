#!/usr/bin/env node
// @ts-check
// Builds the host-memory addon (native/) with node-gyp. The install step (tools/install.mjs)
// calls it leniently: a failure prints the compiler's whole output and why, and the app uses
// the pure-TypeScript fallback (src-main/runtime/host-memory/fallback.ts); the install goes on.
// `node native/build.mjs --strict` (npm run build:native, CI) exits 1 on failure instead.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findNodeGyp, nodeHeadersArgs } from '../tools/setup/node-gyp.mjs';
import { PREFIX, failureBlock, formatSeconds, runQuietStep } from '../tools/setup/quiet-step.mjs';

const NATIVE_DIR = dirname(fileURLToPath(import.meta.url));
const REPO_DIR = join(NATIVE_DIR, '..');
const FALLBACK = 'the app runs on the pure-TypeScript fallback (no locked buffers, no residency)';

/**
 * Why the addon is not even attempted here, or null when it should be built.
 * @param {NodeJS.ProcessEnv} env
 * @param {NodeJS.Platform} platform
 * @param {boolean} hasNodeAddonApi
 */
export function reasonToSkipAddon(env, platform, hasNodeAddonApi) {
  if (env.FF_SKIP_NATIVE === '1') return 'FF_SKIP_NATIVE=1';
  if (platform === 'win32') return 'the addon is POSIX-only (mlock/mincore/posix_fadvise)';
  if (!hasNodeAddonApi) return 'node-addon-api is not installed';
  return null;
}

/**
 * Builds the addon with its output kept back unless it fails. Resolves to whether it was built.
 * @param {{ print?: (line: string) => void }} [options]
 */
export async function buildHostMemoryAddon({ print = (line) => console.log(line) } = {}) {
  const skip = reasonToSkipAddon(
    process.env,
    process.platform,
    existsSync(join(REPO_DIR, 'node_modules', 'node-addon-api')),
  );
  if (skip !== null) {
    print(`${PREFIX} host-memory addon: not built (${skip}); ${FALLBACK}.`);
    return false;
  }
  const nodeGyp = findNodeGyp(process.env, REPO_DIR);
  if (nodeGyp === null) {
    print(`${PREFIX} host-memory addon: not built (node-gyp not found; it ships with npm); ${FALLBACK}.`);
    return false;
  }
  const args = [nodeGyp, 'rebuild', '--jobs', 'max', ...nodeHeadersArgs(process.env)];
  const result = await runQuietStep({
    command: process.execPath,
    args,
    cwd: NATIVE_DIR,
    announce: `${PREFIX} compiling the host-memory addon (C++), about half a minute…`,
    activity: 'compiling the host-memory addon',
    print,
  });
  if (result.isOk) {
    print(`${PREFIX} host-memory addon: compiled (${formatSeconds(result.elapsedMs)})`);
    return true;
  }
  print(failureBlock(`node ${args.join(' ')}`, result));
  print(`${PREFIX} host-memory addon: not built (its output is above); ${FALLBACK}.`);
  return false;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const isStrict = process.argv.includes('--strict');
  const isBuilt = await buildHostMemoryAddon();
  process.exitCode = isBuilt || !isStrict ? 0 : 1;
}

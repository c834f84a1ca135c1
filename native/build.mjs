#!/usr/bin/env node
// Builds the host-memory addon (native/) with node-gyp. Run by the root `install` script,
// so it must never fail the install: on any failure it explains what happened and exits 0,
// and the app uses the pure-TypeScript fallback (src-main/runtime/host-memory/fallback.ts).
// `node native/build.mjs --strict` exits non-zero on failure (for CI that wants the addon).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const nativeDir = dirname(fileURLToPath(import.meta.url));
const isStrict = process.argv.includes('--strict');

/** node-gyp: npm's own copy (npm sets npm_config_node_gyp for lifecycle scripts), else PATH. */
function findNodeGyp() {
  const candidates = [
    process.env.npm_config_node_gyp,
    join(
      dirname(process.execPath),
      '..',
      'lib',
      'node_modules',
      'npm',
      'node_modules',
      'node-gyp',
      'bin',
      'node-gyp.js',
    ),
    join(nativeDir, '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
  ];
  for (const candidate of candidates) {
    if (candidate && existsSync(candidate)) return { command: process.execPath, args: [candidate] };
  }
  return { command: 'node-gyp', args: [] };
}

/** Offline machines: point node-gyp at the headers that ship with this Node, if present. */
function nodedirArgs() {
  if (process.env.npm_config_nodedir) return [];
  const prefix = resolve(dirname(process.execPath), '..');
  return existsSync(join(prefix, 'include', 'node', 'common.gypi')) ? [`--nodedir=${prefix}`] : [];
}

function giveUp(reason) {
  console.warn(`[native] host-memory addon not built: ${reason}`);
  console.warn('[native] the app runs on the pure-TypeScript fallback (no locked buffers, no residency).');
  process.exit(isStrict ? 1 : 0);
}

if (process.env.FF_SKIP_NATIVE === '1') giveUp('FF_SKIP_NATIVE=1');
if (process.platform === 'win32') giveUp('the addon is POSIX-only (mlock/mincore/posix_fadvise)');
if (!existsSync(join(nativeDir, '..', 'node_modules', 'node-addon-api')))
  giveUp('node-addon-api is not installed');

const gyp = findNodeGyp();
const args = [...gyp.args, 'rebuild', '--jobs', 'max', '--loglevel', 'warn', ...nodedirArgs()];
console.log('[native] building the host-memory addon (C++; this takes a minute or two on 2 cores)…');
console.log(`[native] ${[gyp.command, ...args].join(' ')}`);
const result = spawnSync(gyp.command, args, { cwd: nativeDir, stdio: 'inherit', env: process.env });
if (result.error) giveUp(`could not run node-gyp (${result.error.message})`);
if (result.status !== 0) giveUp(`node-gyp exited with ${result.status ?? result.signal}`);
console.log('[native] built native/build/Release/ff_host_memory.node');

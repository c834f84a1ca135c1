#!/usr/bin/env node
// Builds better-sqlite3 for Electron's ABI (Node 20 is ABI 115, Electron 40 is 143). The N-API
// modules (onnxruntime-node, native/ff_host_memory) load in both as they are: see
// tools/native-abi.mjs. Needs the network once: a prebuilt binary from better-sqlite3's
// releases, or Electron's headers from electronjs.org for a compile (a C++20 toolchain).
// This development machine has neither; a user or CI machine does. Packaged builds do not need
// this script: electron-builder rebuilds the app's own copy while packaging.
//
//   node tools/rebuild-native.mjs              build beside the Node copy, into
//        .cache/electron-native/electron-<version>-<platform>-<arch>/better_sqlite3.node
//        (node_modules stays Node's, so tests and the headless host keep working)
//   node tools/rebuild-native.mjs --in-place   rebuild node_modules/better-sqlite3 itself, the
//        classic electron-rebuild way (undo with `npm rebuild better-sqlite3`)
//   options: --electron <version>  --arch <arch>  --dist-url <url>  --dry-run
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { classifyNativeModule } from './native-abi.mjs';

const REPO_DIR = fileURLToPath(new URL('..', import.meta.url));
const SQLITE_DIR = join(REPO_DIR, 'node_modules', 'better-sqlite3');
const DEFAULT_DIST_URL = 'https://electronjs.org/headers';

/** Where the side-by-side build goes; must match electronSqliteBindingPath in src-main/host/electron/app-paths.ts. */
export function electronNativeDir(repoDir, electronVersion, platform, arch) {
  return join(repoDir, '.cache', 'electron-native', `electron-${electronVersion}-${platform}-${arch}`);
}

/** Parses the command line into options (unknown flags are an error). */
export function parseArgs(argv) {
  const options = {
    isInPlace: false,
    isDryRun: false,
    electronVersion: null,
    arch: process.arch,
    distUrl: DEFAULT_DIST_URL,
  };
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i];
    if (flag === '--in-place') options.isInPlace = true;
    else if (flag === '--dry-run') options.isDryRun = true;
    else if (flag === '--electron') options.electronVersion = argv[++i];
    else if (flag === '--arch') options.arch = argv[++i];
    else if (flag === '--dist-url') options.distUrl = argv[++i];
    else throw new Error(`unknown option ${flag}`);
  }
  return options;
}

/**
 * The child environment: npm's `nodedir` (set in this machine's ~/.npmrc, and passed to every
 * npm script as npm_config_nodedir) would make node-gyp build against Node's own headers, a
 * silent wrong-ABI build, so it is removed.
 */
export function buildEnv(env) {
  const cleaned = { ...env };
  for (const key of Object.keys(cleaned))
    if (/^npm_config_(nodedir|target|runtime|disturl|arch)$/i.test(key)) delete cleaned[key];
  return cleaned;
}

/** node-gyp's CLI script: npm's own copy (npm_config_node_gyp or beside node), else node_modules. */
function findNodeGyp() {
  const npmCopy = join(
    dirname(process.execPath),
    '../lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js',
  );
  const found = [process.env.npm_config_node_gyp, npmCopy].find((path) => path && existsSync(path));
  if (found) return found;
  try {
    return createRequire(import.meta.url).resolve('node-gyp/bin/node-gyp.js');
  } catch {
    return null;
  }
}

function run(command, args, cwd, isDryRun) {
  console.log(`$ (cd ${cwd} && ${[command, ...args].join(' ')})`);
  if (isDryRun) return true;
  return spawnSync(command, args, { cwd, stdio: 'inherit', env: buildEnv(process.env) }).status === 0;
}

/** Tries a prebuilt Electron binary first (no compiler needed), then a node-gyp compile. */
function buildIn(dir, options) {
  const prebuild = join(REPO_DIR, 'node_modules', 'prebuild-install', 'bin.js');
  const target = ['--runtime=electron', `--target=${options.electronVersion}`, `--arch=${options.arch}`];
  if (
    existsSync(prebuild) &&
    run(process.execPath, [prebuild, ...target, '--verbose'], dir, options.isDryRun)
  )
    return true;
  const nodeGyp = findNodeGyp();
  if (nodeGyp === null) throw new Error('node-gyp not found (it ships with npm)');
  const gypArgs = [
    'rebuild',
    '--release',
    `--target=${options.electronVersion}`,
    `--arch=${options.arch}`,
    `--dist-url=${options.distUrl}`,
  ];
  return run(process.execPath, [nodeGyp, ...gypArgs], dir, options.isDryRun);
}

/** Fails unless `file` is a module for `abi` (a build against the wrong headers is caught here). */
function verifyAbi(file, abi) {
  const found = classifyNativeModule(readFileSync(file));
  if (found.kind !== 'abi' || found.abi !== abi)
    throw new Error(`${file} is ${JSON.stringify(found)}, want ABI ${abi}`);
  console.log(`ok: ${file} is built for ABI ${abi}`);
}

function main() {
  const options = parseArgs(process.argv.slice(2));
  const electronPackage = JSON.parse(
    readFileSync(join(REPO_DIR, 'node_modules', 'electron', 'package.json'), 'utf8'),
  );
  options.electronVersion ??= electronPackage.version;
  const abi = Number(readFileSync(join(REPO_DIR, 'node_modules', 'electron', 'abi_version'), 'utf8').trim());
  console.log(
    `better-sqlite3 for Electron ${options.electronVersion} (ABI ${abi}), ${process.platform}-${options.arch}`,
  );
  const outDir = electronNativeDir(REPO_DIR, options.electronVersion, process.platform, options.arch);
  const workDir = options.isInPlace ? SQLITE_DIR : join(outDir, 'staging');
  if (!options.isInPlace && !options.isDryRun) {
    rmSync(workDir, { recursive: true, force: true });
    cpSync(SQLITE_DIR, workDir, {
      recursive: true,
      filter: (src) => !src.startsWith(join(SQLITE_DIR, 'build')),
    });
  }
  try {
    buildAndInstall(workDir, outDir, abi, options);
  } finally {
    if (!options.isInPlace && !options.isDryRun) rmSync(workDir, { recursive: true, force: true });
  }
}

/** Builds in `workDir`, checks the ABI, and (side by side) copies the result to `outDir`. */
function buildAndInstall(workDir, outDir, abi, options) {
  if (!buildIn(workDir, options)) {
    throw new Error(
      `no Electron build: the prebuilt download and the compile both failed. Both need the network once ` +
        `(GitHub releases, or ${options.distUrl} for headers); behind a proxy set HTTPS_PROXY.`,
    );
  }
  if (options.isDryRun) return;
  const built = join(workDir, 'build', 'Release', 'better_sqlite3.node');
  verifyAbi(built, abi);
  if (options.isInPlace) {
    console.log(
      'node_modules/better-sqlite3 now loads in Electron only; `npm rebuild better-sqlite3` restores Node.',
    );
    return;
  }
  mkdirSync(outDir, { recursive: true });
  cpSync(built, join(outDir, 'better_sqlite3.node'));
  console.log(`wrote ${join(outDir, 'better_sqlite3.node')}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    main();
  } catch (error) {
    console.error(`rebuild-native: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}

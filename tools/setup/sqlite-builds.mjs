// @ts-check
// better-sqlite3 is bound to one runtime's ABI (Node 20 is 115, Electron 40 is 143), so one
// install keeps two builds side by side: node_modules/better-sqlite3's own (for Node: tests,
// CLIs, the headless host) and an Electron copy in its own folder, which the desktop app loads
// through better-sqlite3's `nativeBinding` option. Each is a prebuilt download first (seconds,
// no compiler) and a compile second (about a minute).
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { classifyNativeModule } from '../native-abi.mjs';
import { classifyFetchFailure } from './network.mjs';
import { electronBuildEnv, findNodeGyp, nodeHeadersArgs } from './node-gyp.mjs';
import { PREFIX, failureBlock, formatSeconds, runQuietStep } from './quiet-step.mjs';

const BINARY = join('build', 'Release', 'better_sqlite3.node');
/** Where node-gyp fetches Electron's headers for a compile. */
export const ELECTRON_HEADERS_URL = 'https://electronjs.org/headers';

/**
 * `ready` (a build for `abi`), `missing`, or `wrong-abi` (a build for another runtime).
 * @param {string} binaryPath
 * @param {number} abi
 * @returns {'ready' | 'missing' | 'wrong-abi'}
 */
export function sqliteBuildState(binaryPath, abi) {
  if (!existsSync(binaryPath)) return 'missing';
  const found = classifyNativeModule(readFileSync(binaryPath));
  return found.kind === 'abi' && found.abi === abi ? 'ready' : 'wrong-abi';
}

/** @param {string} repoDir */
export function sqlitePackageDir(repoDir) {
  return join(repoDir, 'node_modules', 'better-sqlite3');
}

/** @param {string} repoDir */
export function nodeSqliteBinary(repoDir) {
  return join(sqlitePackageDir(repoDir), BINARY);
}

/**
 * The folder of the Electron copy for one Electron version and platform; the main process looks
 * for `better_sqlite3.node` there (src-main/host/electron/app-paths.ts, kept equal by a test).
 * @param {string} repoDir
 * @param {string} electronVersion
 * @param {string} platform
 * @param {string} arch
 */
export function electronSqliteDir(repoDir, electronVersion, platform, arch) {
  return join(repoDir, '.cache', 'electron-native', `electron-${electronVersion}-${platform}-${arch}`);
}

/** @param {string} repoDir */
function prebuildInstallBin(repoDir) {
  try {
    return createRequire(join(sqlitePackageDir(repoDir), 'package.json')).resolve('prebuild-install/bin.js');
  } catch {
    // better-sqlite3 depends on prebuild-install; without it there is only the compile.
    return null;
  }
}

/**
 * @typedef {object} BuildTarget
 * @property {string} label        "SQLite for this machine" / "SQLite for Electron 40.9.3"
 * @property {string[]} prebuildArgs extra prebuild-install arguments (runtime, target, arch)
 * @property {string[]} gypArgs    extra node-gyp arguments (headers, target, arch)
 * @property {NodeJS.ProcessEnv} env
 * @property {number} prebuildTimeoutMs
 */

/**
 * @typedef {{ how: 'prebuilt' | 'compiled', elapsedMs: number }
 *   | { how: 'none', download: import('./network.mjs').FetchOutcome,
 *       compile: import('./quiet-step.mjs').StepResult | null, commandLine: string }} BuildResult
 */

/**
 * Gets a binary into `dir/build/Release`: the prebuilt download, else a compile. Returns how,
 * or the download's failure and the compile's result when both failed.
 * @param {string} repoDir
 * @param {string} dir
 * @param {BuildTarget} target
 * @param {(line: string) => void} print
 * @returns {Promise<BuildResult>}
 */
async function prebuiltOrCompile(repoDir, dir, target, print) {
  const prebuild = prebuildInstallBin(repoDir);
  /** @type {import('./network.mjs').FetchOutcome} */
  let download = { kind: 'failed', detail: 'prebuild-install is not installed' };
  if (prebuild) {
    const fetched = await runQuietStep({
      command: process.execPath,
      // --verbose: npm passes its loglevel to scripts, and at `error` prebuild-install fails
      // silently; its reason (offline, no such prebuilt) is read from this output.
      args: [prebuild, '--verbose', ...target.prebuildArgs],
      cwd: dir,
      env: target.env,
      announce: `${PREFIX} downloading a prebuilt ${target.label}…`,
      announceAfterMs: 3_000,
      activity: `downloading ${target.label}`,
      timeoutMs: target.prebuildTimeoutMs,
      print,
    });
    if (fetched.isOk) return { how: 'prebuilt', elapsedMs: fetched.elapsedMs };
    download = classifyFetchFailure(fetched.output, fetched.isTimedOut);
  }
  const nodeGyp = findNodeGyp(target.env, repoDir);
  if (nodeGyp === null) return { how: 'none', download, compile: null, commandLine: 'node-gyp' };
  const args = [nodeGyp, 'rebuild', '--release', '--jobs', 'max', ...target.gypArgs];
  const compile = await runQuietStep({
    command: process.execPath,
    args,
    cwd: dir,
    env: target.env,
    announce: `${PREFIX} compiling ${target.label} (no prebuilt binary: ${download.detail}), a minute or two…`,
    activity: `compiling ${target.label}`,
    print,
  });
  if (compile.isOk) return { how: 'compiled', elapsedMs: compile.elapsedMs };
  return { how: 'none', download, compile, commandLine: `node ${args.join(' ')}` };
}

/**
 * The install step for Node's build: keeps a build that is already right (npm 10 runs
 * better-sqlite3's own install script; npm ≥ 11.16 leaves it to this step), else downloads or
 * compiles it. On failure prints the whole compiler output. Resolves to whether SQLite is usable.
 * @param {{ repoDir: string, print?: (line: string) => void }} options
 */
export async function ensureNodeSqlite({ repoDir, print = (line) => console.log(line) }) {
  const abi = Number(process.versions.modules);
  const state = sqliteBuildState(nodeSqliteBinary(repoDir), abi);
  if (state === 'ready') {
    print(`${PREFIX} SQLite for Node: already built for this Node (ABI ${abi})`);
    return true;
  }
  const target = {
    label: 'SQLite for this machine',
    prebuildArgs: [],
    gypArgs: nodeHeadersArgs(process.env),
    env: process.env,
    prebuildTimeoutMs: 30_000,
  };
  const result = await prebuiltOrCompile(repoDir, sqlitePackageDir(repoDir), target, print);
  if (result.how !== 'none') {
    print(`${PREFIX} SQLite for Node: ${result.how} (${formatSeconds(result.elapsedMs)})`);
    return true;
  }
  if (result.compile) print(failureBlock(result.commandLine, result.compile));
  print(`${PREFIX} SQLite for Node could not be built: history and stored runs will be off.`);
  print(`${PREFIX} A C++ toolchain (g++, make, python3) fixes it: install one, then run \`npm ci\` again.`);
  return false;
}

/**
 * @typedef {object} ElectronSqliteOptions
 * @property {string} repoDir
 * @property {string} electronVersion
 * @property {number} abi            Electron's module ABI (its package's abi_version, readElectronPackage)
 * @property {string} [arch]
 * @property {boolean} [isFailureShown] print the compiler's whole output when the compile fails
 *   for another reason than the network (electron:fetch, dist); `npm start` keeps it back
 * @property {(line: string) => void} [print]
 */

/**
 * Builds or downloads better-sqlite3 for Electron into its own folder (node_modules stays
 * Node's), checking the result's ABI before installing it. Needs the network once (a prebuilt
 * from GitHub, or Electron's headers for a compile). Never throws; the outcome says why not.
 * @param {ElectronSqliteOptions} options
 * @returns {Promise<import('./network.mjs').FetchOutcome>}
 */
export async function fetchElectronSqlite(options) {
  const { repoDir, electronVersion, abi, arch = process.arch, print = (line) => console.log(line) } = options;
  const outDir = electronSqliteDir(repoDir, electronVersion, process.platform, arch);
  const staging = join(outDir, 'staging');
  const source = sqlitePackageDir(repoDir);
  rmSync(staging, { recursive: true, force: true });
  cpSync(source, staging, { recursive: true, filter: (path) => !path.startsWith(join(source, 'build')) });
  const runtime = ['--runtime=electron', `--target=${electronVersion}`, `--arch=${arch}`];
  const target = {
    label: `SQLite for Electron ${electronVersion}`,
    prebuildArgs: runtime,
    // --loglevel=http: the headers' URL is printed, so an offline failure can name the host.
    gypArgs: [
      `--target=${electronVersion}`,
      `--arch=${arch}`,
      `--dist-url=${ELECTRON_HEADERS_URL}`,
      '--loglevel=http',
    ],
    env: electronBuildEnv(process.env),
    prebuildTimeoutMs: 60_000,
  };
  try {
    const result = await prebuiltOrCompile(repoDir, staging, target, print);
    if (result.how === 'none') {
      const failure = electronFailure(result);
      if (options.isFailureShown && failure.kind !== 'offline' && result.compile)
        print(failureBlock(result.commandLine, result.compile));
      return failure;
    }
    const built = join(staging, BINARY);
    const state = sqliteBuildState(built, abi);
    if (state !== 'ready') return { kind: 'failed', detail: `the build is not for Electron's ABI ${abi}` };
    mkdirSync(outDir, { recursive: true });
    cpSync(built, join(outDir, 'better_sqlite3.node'));
    return { kind: 'ok', detail: `${result.how} in ${formatSeconds(result.elapsedMs)}` };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * One outcome for "neither the download nor the compile worked": offline when the compile could
 * not fetch Electron's headers, else the compile's own failure.
 * @param {Extract<BuildResult, { how: 'none' }>} result
 * @returns {import('./network.mjs').FetchOutcome}
 */
function electronFailure({ download, compile }) {
  if (compile === null) return { kind: 'failed', detail: `no prebuilt (${download.detail}) and no node-gyp` };
  const compileWhy = classifyFetchFailure(compile.output, compile.isTimedOut);
  if (compileWhy.kind === 'offline')
    return { kind: 'offline', detail: `no prebuilt (${download.detail}), no headers (${compileWhy.detail})` };
  return { kind: 'failed', detail: `no prebuilt (${download.detail}); compile failed: ${compileWhy.detail}` };
}

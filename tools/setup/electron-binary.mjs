// @ts-check
// Installs Electron into .cache/electron (tools/setup/electron-release.mjs says why there): the
// `electron` npm package of the declared version from the npm registry, with scripts off (its
// types and installer, a few MB), then, on demand, its binary (about 110 MB from GitHub) through
// the package's own installer.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ELECTRON_HOME, electronPackageDir, readElectronPackage } from './electron-release.mjs';
import { classifyFetchFailure } from './network.mjs';
import { PREFIX, failureBlock, formatSeconds, runQuietStep } from './quiet-step.mjs';

/**
 * How to run npm with this Node: the npm that runs us (`npm start`, the install step), else the
 * one installed beside Node, else `npm` from PATH.
 * @param {NodeJS.ProcessEnv} env
 * @returns {{ command: string, args: string[] }}
 */
export function npmCommand(env) {
  const running = env.npm_execpath;
  if (running && basename(running) === 'npm-cli.js') return { command: process.execPath, args: [running] };
  const nodeDir = dirname(process.execPath);
  const bundled =
    process.platform === 'win32'
      ? join(nodeDir, 'node_modules', 'npm', 'bin', 'npm-cli.js')
      : join(nodeDir, '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');
  if (existsSync(bundled)) return { command: process.execPath, args: [bundled] };
  return { command: 'npm', args: [] };
}

/**
 * Installs the `electron` package of `version` into .cache/electron, scripts off (the binary is
 * fetchElectronBinary's job). Keeps npm's output back unless `isFailureShown` and it fails for
 * another reason than the network. Never throws.
 * @param {{ repoDir: string, version: string, isFailureShown?: boolean, print?: (line: string) => void }} options
 * @returns {Promise<import('./network.mjs').FetchOutcome>}
 */
export async function installElectronPackage(options) {
  const { repoDir, version, isFailureShown = false, print = (line) => console.log(line) } = options;
  const home = join(repoDir, ELECTRON_HOME);
  mkdirSync(home, { recursive: true });
  const manifest = {
    name: 'first-frame-electron',
    private: true,
    description: "Electron for First Frame's desktop window, outside the project's dependencies",
    dependencies: { electron: version },
  };
  writeFileSync(join(home, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const npm = npmCommand(process.env);
  const args = [...npm.args, 'install', '--prefix', home, '--ignore-scripts', '--no-audit', '--no-fund'];
  const result = await runQuietStep({
    command: npm.command,
    args,
    cwd: home,
    announce: `${PREFIX} installing the electron ${version} npm package (types and installer, no binary)…`,
    announceAfterMs: 5_000,
    activity: `installing the electron ${version} package`,
    timeoutMs: 5 * 60_000,
    print,
  });
  if (result.isOk && readElectronPackage(repoDir).isPackageInstalled)
    return { kind: 'ok', detail: `installed in ${formatSeconds(result.elapsedMs)}` };
  if (result.isOk)
    return { kind: 'failed', detail: `npm finished but ${ELECTRON_HOME} has no electron ${version}` };
  const outcome = classifyFetchFailure(result.output, result.isTimedOut);
  if (isFailureShown && outcome.kind !== 'offline')
    print(failureBlock(`${npm.command} ${args.join(' ')}`, result));
  return outcome;
}

/**
 * The installer's environment: the skip switch removed (the caller decided to download), and
 * @electron/get told to use the user's proxy when one is set (it ignores HTTPS_PROXY otherwise).
 * @param {NodeJS.ProcessEnv} env
 */
export function electronInstallerEnv(env) {
  /** @type {NodeJS.ProcessEnv} */
  const out = { ...env };
  delete out.ELECTRON_SKIP_BINARY_DOWNLOAD;
  const proxy = env.HTTPS_PROXY ?? env.https_proxy ?? env.HTTP_PROXY ?? env.http_proxy;
  if (proxy && !env.GLOBAL_AGENT_HTTPS_PROXY) {
    out.ELECTRON_GET_USE_PROXY = '1';
    out.GLOBAL_AGENT_HTTPS_PROXY = proxy;
  }
  return out;
}

/**
 * Electron's binary for the declared version: the package first when it is missing, then the
 * package's own installer (install.js). Prints a progress line only once the download has taken
 * a few seconds (offline it fails at once and the caller's one line says so), then a heartbeat.
 * `isFailureShown` prints the whole output of a step that fails for another reason than the
 * network (`npm run electron:fetch`, `npm run dist`). Never throws.
 * @param {{ repoDir: string, timeoutMs?: number, announceAfterMs?: number,
 *   isFailureShown?: boolean, print?: (line: string) => void }} options
 * @returns {Promise<import('./network.mjs').FetchOutcome>}
 */
export async function fetchElectronBinary(options) {
  const { repoDir, timeoutMs = 10 * 60_000, announceAfterMs = 3_000 } = options;
  const { isFailureShown = false, print = (/** @type {string} */ line) => console.log(line) } = options;
  const { version, isPackageInstalled } = readElectronPackage(repoDir);
  if (!isPackageInstalled) {
    const installed = await installElectronPackage({ repoDir, version, isFailureShown, print });
    if (installed.kind !== 'ok') return installed;
  }
  const packageDir = electronPackageDir(repoDir);
  const result = await runQuietStep({
    command: process.execPath,
    args: [join(packageDir, 'install.js')],
    cwd: packageDir,
    env: electronInstallerEnv(process.env),
    announce: `${PREFIX} downloading Electron ${version} for the desktop window (about 110 MB, once; Ctrl+C skips it)…`,
    announceAfterMs,
    activity: `downloading Electron ${version}`,
    heartbeatMs: 10_000,
    timeoutMs,
    print,
  });
  if (result.isOk && readElectronPackage(repoDir).binaryPath !== null)
    return { kind: 'ok', detail: `downloaded in ${Math.round(result.elapsedMs / 1000)} s` };
  if (result.isOk) return { kind: 'failed', detail: 'the installer finished but left no binary' };
  const outcome = classifyFetchFailure(result.output, result.isTimedOut);
  if (isFailureShown && outcome.kind !== 'offline')
    print(failureBlock(`node ${join(packageDir, 'install.js')}`, result));
  return outcome;
}

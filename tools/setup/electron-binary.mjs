// @ts-check
// The `electron` package and its binary. The package (types, version, installer) is always in
// node_modules; the binary (about 110 MB from GitHub) is downloaded by the package's own
// installer, which npm ≥ 11.16 does not run during the install (allowScripts) and npm 10 does.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { classifyFetchFailure } from './network.mjs';
import { PREFIX, failureBlock, runQuietStep } from './quiet-step.mjs';

/**
 * @typedef {object} ElectronPackage
 * @property {boolean} isPackageInstalled
 * @property {string} version     "40.9.3" ("" when the package is absent)
 * @property {number | null} abi  its module ABI (abi_version)
 * @property {string} distDir     where the installer unpacks the binary
 * @property {string | null} binaryPath the executable, when the binary is installed
 */

/**
 * What node_modules/electron holds. Mirrors the package's index.js (path.txt names the
 * executable inside dist/) without requiring it, which throws when the binary is missing.
 * @param {string} repoDir
 * @returns {ElectronPackage}
 */
export function readElectronPackage(repoDir) {
  const packageDir = join(repoDir, 'node_modules', 'electron');
  const distDir = join(packageDir, 'dist');
  if (!existsSync(join(packageDir, 'package.json')))
    return { isPackageInstalled: false, version: '', abi: null, distDir, binaryPath: null };
  const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
  const abiFile = join(packageDir, 'abi_version');
  const abi = existsSync(abiFile) ? Number(readFileSync(abiFile, 'utf8').trim()) : null;
  const pathFile = join(packageDir, 'path.txt');
  const relative = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null;
  const binary = relative ? join(distDir, relative) : null;
  return {
    isPackageInstalled: true,
    version,
    abi,
    distDir,
    binaryPath: binary && existsSync(binary) ? binary : null,
  };
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
 * Runs Electron's own installer (node_modules/electron/install.js). Prints a progress line only
 * once the download has taken a few seconds (offline it fails at once and the caller's one line
 * says so), then a heartbeat. `isFailureShown` prints the installer's whole output when it fails
 * for another reason than the network (`npm run electron:fetch`). Never throws.
 * @param {{ repoDir: string, version: string, timeoutMs?: number, announceAfterMs?: number,
 *   isFailureShown?: boolean, print?: (line: string) => void }} options
 * @returns {Promise<import('./network.mjs').FetchOutcome>}
 */
export async function fetchElectronBinary(options) {
  const { repoDir, version, timeoutMs = 10 * 60_000, announceAfterMs = 3_000 } = options;
  const { isFailureShown = false, print = (/** @type {string} */ line) => console.log(line) } = options;
  const packageDir = join(repoDir, 'node_modules', 'electron');
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

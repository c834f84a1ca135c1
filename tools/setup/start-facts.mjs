// @ts-check
// Reads the facts decideStart needs from this machine (files, environment, sysctl). Kept apart
// from the decision so the decision's tests fake every one of them.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readElectronPackage } from './electron-release.mjs';
import { readSandboxFacts } from './sandbox.mjs';
import { electronSqliteDir } from './sqlite-builds.mjs';

/**
 * Whether a window can be shown: Linux needs an X11 or Wayland display; macOS and Windows
 * always have one for a logged-in user.
 * @param {NodeJS.Platform} platform
 * @param {NodeJS.ProcessEnv} env
 */
export function hasDisplay(platform, env) {
  if (platform !== 'linux') return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

/**
 * @typedef {object} GatherOptions
 * @property {string} repoDir
 * @property {NodeJS.ProcessEnv} env
 * @property {boolean} isBrowserRequested
 * @property {boolean} canDownload
 * @property {import('./network.mjs').FetchOutcome | null} [electronFetch]
 * @property {import('./network.mjs').FetchOutcome | null} [sqliteFetch]
 */

/**
 * The facts as they are now (after any download this run made).
 * @param {GatherOptions} options
 * @returns {import('./start-decision.mjs').StartFacts}
 */
export function gatherStartFacts(options) {
  const { repoDir, env } = options;
  const electron = readElectronPackage(repoDir);
  const sqliteDir = electronSqliteDir(repoDir, electron.version, process.platform, process.arch);
  return {
    platform: process.platform,
    isBrowserRequested: options.isBrowserRequested,
    hasDisplay: hasDisplay(process.platform, env),
    canDownload: options.canDownload,
    electron: {
      version: electron.version,
      binaryPath: electron.binaryPath,
      isDownloadSkipped: Boolean(env.ELECTRON_SKIP_BINARY_DOWNLOAD),
      fetch: options.electronFetch ?? null,
    },
    sandbox: electron.binaryPath ? readSandboxFacts(electron.binaryPath, process.platform) : null,
    sqlite: {
      isElectronBuildPresent: existsSync(join(sqliteDir, 'better_sqlite3.node')),
      fetch: options.sqliteFetch ?? null,
    },
  };
}

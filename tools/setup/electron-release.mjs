// @ts-check
// Which Electron the desktop app runs on, and where it is installed. Electron is not one of the
// project's npm dependencies: its package's own install script downloads the binary from
// GitHub and fails `npm ci` where that cannot be reached, and npm 10 offers no way to skip it.
// package.json declares the version once (`electronVersion`); the `electron` package of exactly
// that version is installed into its own npm project in `.cache/electron` (by the install step,
// without scripts), its binary on demand (`npm start`, `npm run electron:fetch`). The build,
// packaging, SQLite for Electron, the window's tests and the TypeScript check read it from here.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The on-demand install's npm project, relative to the repository, `/`-separated (path.join
 * adapts it; tsconfig.node.json's `paths` names it too).
 */
export const ELECTRON_HOME = '.cache/electron';

/**
 * The Electron version package.json declares (`electronVersion`, an exact version).
 * @param {string} repoDir
 * @returns {string}
 */
export function declaredElectronVersion(repoDir) {
  const manifest = JSON.parse(readFileSync(join(repoDir, 'package.json'), 'utf8'));
  const version = manifest.electronVersion;
  if (typeof version !== 'string' || !/^\d+\.\d+\.\d+$/.test(version))
    throw new Error(
      `package.json's electronVersion must be an exact version such as "40.9.3" (found ${version})`,
    );
  return version;
}

/**
 * The installed `electron` package's folder (types, installer, and `dist/` once downloaded).
 * @param {string} repoDir
 */
export function electronPackageDir(repoDir) {
  return join(repoDir, ELECTRON_HOME, 'node_modules', 'electron');
}

/**
 * @typedef {object} ElectronPackage
 * @property {string} version     the declared version
 * @property {boolean} isPackageInstalled the `electron` package of that version is in .cache/electron
 * @property {number | null} abi  its module ABI (the package's abi_version), null until installed
 * @property {string} distDir     where its installer unpacks the binary
 * @property {string | null} binaryPath the executable, when the binary of that version is installed
 */

/**
 * What `.cache/electron` holds for the declared version. Mirrors the package's index.js (path.txt
 * names the executable inside dist/) without requiring it, which throws when the binary is
 * missing. A package of another version (the declaration moved on) counts as not installed: npm
 * replaces it, binary and all, at the next install.
 * @param {string} repoDir
 * @returns {ElectronPackage}
 */
export function readElectronPackage(repoDir) {
  const version = declaredElectronVersion(repoDir);
  const packageDir = electronPackageDir(repoDir);
  const distDir = join(packageDir, 'dist');
  const absent = { version, isPackageInstalled: false, abi: null, distDir, binaryPath: null };
  const manifest = join(packageDir, 'package.json');
  if (!existsSync(manifest) || JSON.parse(readFileSync(manifest, 'utf8')).version !== version) return absent;
  const abiFile = join(packageDir, 'abi_version');
  const abi = existsSync(abiFile) ? Number(readFileSync(abiFile, 'utf8').trim()) : null;
  const pathFile = join(packageDir, 'path.txt');
  const relative = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null;
  const binary = relative ? join(distDir, relative) : null;
  return {
    version,
    isPackageInstalled: true,
    abi,
    distDir,
    binaryPath: binary && existsSync(binary) ? binary : null,
  };
}

/**
 * The variables electron-vite reads where the `electron` package is not resolvable from the
 * project: the major version (its build targets and ESM support) and, once the binary is there,
 * the executable `electron-vite dev` starts.
 * @param {string} repoDir
 * @returns {{ ELECTRON_MAJOR_VER: string, ELECTRON_EXEC_PATH?: string }}
 */
export function electronViteEnv(repoDir) {
  const electron = readElectronPackage(repoDir);
  const major = electron.version.split('.')[0] ?? '';
  return electron.binaryPath
    ? { ELECTRON_MAJOR_VER: major, ELECTRON_EXEC_PATH: electron.binaryPath }
    : { ELECTRON_MAJOR_VER: major };
}

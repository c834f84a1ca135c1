// @ts-check
// Chromium's sandbox on Linux needs either unprivileged user namespaces or the setuid helper
// `chrome-sandbox` (owned by root, mode 4755). Ubuntu ≥ 24.04 restricts user namespaces through
// AppArmor (kernel.apparmor_restrict_unprivileged_userns = 1) unless a profile grants `userns`
// to the executable; with neither, Electron aborts at start. This reads those three facts.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const RESTRICT_SYSCTL = '/proc/sys/kernel/apparmor_restrict_unprivileged_userns';
const APPARMOR_DIR = '/etc/apparmor.d';

/**
 * @typedef {object} SandboxFacts
 * @property {boolean} isUsernsRestricted AppArmor denies unprivileged user namespaces
 * @property {boolean} isSetuidHelperReady chrome-sandbox is root-owned with the setuid bit
 * @property {boolean} hasAppArmorProfile a profile in /etc/apparmor.d names this executable
 * @property {string} helperPath          chrome-sandbox beside the executable
 */

/**
 * Reads the sandbox facts for an Electron executable (Linux; elsewhere nothing is restricted).
 * @param {string} binaryPath
 * @param {NodeJS.Platform} platform
 * @returns {SandboxFacts}
 */
export function readSandboxFacts(binaryPath, platform) {
  const helperPath = join(binaryPath, '..', 'chrome-sandbox');
  if (platform !== 'linux')
    return { isUsernsRestricted: false, isSetuidHelperReady: false, hasAppArmorProfile: false, helperPath };
  return {
    isUsernsRestricted: readText(RESTRICT_SYSCTL) === '1',
    isSetuidHelperReady: isSetuidRoot(helperPath),
    hasAppArmorProfile: profileNames(binaryPath),
    helperPath,
  };
}

/** @param {string} path */
function readText(path) {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    // No such sysctl: a kernel without the AppArmor restriction.
    return null;
  }
}

/** @param {string} path */
function isSetuidRoot(path) {
  if (!existsSync(path)) return false;
  const stat = statSync(path);
  return stat.uid === 0 && (stat.mode & 0o4755) === 0o4755;
}

/**
 * Whether any top-level profile file mentions the executable's path (how Ubuntu's own profiles
 * and electron-builder's deb grant `userns`).
 * @param {string} binaryPath
 */
function profileNames(binaryPath) {
  try {
    return readdirSync(APPARMOR_DIR).some((name) => {
      const path = join(APPARMOR_DIR, name);
      return statSync(path).isFile() && (readText(path) ?? '').includes(binaryPath);
    });
  } catch {
    // No /etc/apparmor.d (or unreadable): no profile can grant anything.
    return false;
  }
}

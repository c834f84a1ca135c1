// @ts-check
// What the install tells a new user about the downloads it did not make: pure, so every npm
// version and machine state is a unit test. npm ≥ 11.16 honours package.json's `allowScripts`
// (Electron's and better-sqlite3's own install scripts do not run); npm 10 ignores it (they
// run, and Electron downloads its binary during the install). onnxruntime-node's CUDA download
// is off under both through `.npmrc` (`onnxruntime-node-install=skip`).

/** The first npm release that honours package.json's allowScripts. */
export const ALLOW_SCRIPTS_SINCE = [11, 16, 0];

/**
 * npm's version from the user agent npm gives its scripts ("npm/11.19.1 node/v20.20.2 …"), or
 * null when not run by npm.
 * @param {string | undefined} userAgent
 * @returns {number[] | null}
 */
export function parseNpmVersion(userAgent) {
  const match = /\bnpm\/(\d+)\.(\d+)\.(\d+)/.exec(userAgent ?? '');
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : null;
}

/**
 * Whether this npm skips install scripts that allowScripts sets to false.
 * @param {number[] | null} version
 */
export function honoursAllowScripts(version) {
  if (version === null) return false;
  for (let i = 0; i < ALLOW_SCRIPTS_SINCE.length; i += 1) {
    const [have, want] = [version[i] ?? 0, ALLOW_SCRIPTS_SINCE[i] ?? 0];
    if (have !== want) return have > want;
  }
  return true;
}

/**
 * @typedef {object} InstallFacts
 * @property {number[] | null} npmVersion
 * @property {string} electronVersion
 * @property {boolean} isElectronBinaryPresent
 * @property {boolean} isElectronDownloadSkipped ELECTRON_SKIP_BINARY_DOWNLOAD is set
 * @property {boolean} hasCudaManifest  onnxruntime-node has GPU files to download on this platform
 * @property {boolean} hasCudaFiles     they are already there
 */

/**
 * One line per download the install did not make (or did), with the command that makes it.
 * @param {InstallFacts} facts
 * @returns {string[]}
 */
export function installNotes(facts) {
  const notes = [];
  if (facts.isElectronBinaryPresent) {
    notes.push(`Electron ${facts.electronVersion}: installed; \`npm start\` opens the desktop window.`);
  } else {
    const why = facts.isElectronDownloadSkipped
      ? 'ELECTRON_SKIP_BINARY_DOWNLOAD is set'
      : honoursAllowScripts(facts.npmVersion)
        ? "package.json's allowScripts keeps downloads out of the install"
        : 'its install script did not run';
    notes.push(
      `Electron ${facts.electronVersion} (the desktop window): not downloaded (${why}); ` +
        '`npm start` downloads it (about 110 MB) the first time a display is available.',
    );
  }
  if (facts.hasCudaManifest && !facts.hasCudaFiles)
    notes.push(
      "ONNX Runtime's GPU (CUDA 12) files: not downloaded (.npmrc skips them); `npm run gpu:install` adds them.",
    );
  return notes;
}

// @ts-check
// What the install tells a new user about the downloads it did not make: pure, so every machine
// state is a unit test. Under every npm version: Electron is not one of the project's
// dependencies, so no npm runs its installer (the install step puts only its npm package into
// .cache/electron; the binary comes with `npm start` or `npm run electron:fetch`), and
// onnxruntime-node's CUDA download is off through `.npmrc` (`onnxruntime-node-install=skip`).

/**
 * @typedef {object} InstallFacts
 * @property {string} electronVersion   the declared version
 * @property {import('./network.mjs').FetchOutcome | null} electronPackage this install's
 *   install of the electron package into .cache/electron; null when it was there already
 * @property {boolean} isElectronBinaryPresent
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
  const version = facts.electronVersion;
  if (facts.electronPackage?.kind === 'ok')
    notes.push(
      `Electron ${version}'s npm package (types and installer, no binary): ${facts.electronPackage.detail}, in .cache/electron.`,
    );
  else if (facts.electronPackage)
    notes.push(
      `Electron ${version}'s npm package (types and installer) could not be installed in .cache/electron ` +
        `(${facts.electronPackage.detail}); \`npm run electron:fetch\` installs it (\`npm run typecheck\` needs it).`,
    );
  if (facts.isElectronBinaryPresent)
    notes.push(`Electron ${version}: installed in .cache/electron; \`npm start\` opens the desktop window.`);
  else
    notes.push(
      `Electron ${version} (the desktop window): not downloaded (the install never downloads it); ` +
        '`npm start` downloads it (about 110 MB) the first time a display is available, ' +
        '`npm run electron:fetch` now.',
    );
  if (facts.hasCudaManifest && !facts.hasCudaFiles)
    notes.push(
      "ONNX Runtime's GPU (CUDA 12) files: not downloaded (.npmrc skips them); `npm run gpu:install` adds them.",
    );
  return notes;
}

/**
 * @typedef {object} InstallSteps
 * @property {boolean} isSqliteReady        SQLite for Node is already built for this Node
 * @property {boolean} isAddonBuilt         the host-memory addon will be compiled (false: skipped)
 * @property {boolean} isElectronPackagePresent Electron's npm package is already in .cache/electron
 */

/**
 * The install's first line, printed before any step: what it is about to do and roughly how
 * long, so a new user knows npm has not hung (its own package download before this is silent
 * at `loglevel=error`). Each step then has its own line and a heartbeat every 15 s.
 * @param {InstallSteps} steps
 * @returns {string}
 */
export function installPlanLine(steps) {
  const parts = [];
  if (!steps.isSqliteReady)
    parts.push('SQLite for this machine (a prebuilt download, else a 1–2 minute compile)');
  if (steps.isAddonBuilt) parts.push('the host-memory addon (about half a minute)');
  if (!steps.isElectronPackagePresent) parts.push("Electron's npm package (seconds)");
  if (parts.length === 0) return 'setting up: everything is already built; checking takes seconds.';
  const total = steps.isSqliteReady ? 'under a minute' : 'usually 1–3 minutes';
  return `setting up ${parts.join(', ')}: ${total}, a line every 15 s while a step runs.`;
}

// @ts-check
// What `npm start` does next, from facts about this machine: pure, so every case (online or
// offline, binary present or absent, display or none, AppArmor on or off) is a unit test with
// the environment faked. No npm version installs Electron (it is not one of the project's
// dependencies: tools/setup/electron-release.mjs), so after `npm ci` under npm 10 or 11 the
// binary is missing until the first start with a display fetches it. tools/start.mjs gathers
// the facts, acts on the decision (a download records its outcome in the facts), and asks again
// until it gets a window or the browser.

/**
 * @typedef {import('./network.mjs').FetchOutcome} FetchOutcome
 * @typedef {import('./sandbox.mjs').SandboxFacts} SandboxFacts
 */

/**
 * @typedef {object} StartFacts
 * @property {NodeJS.Platform} platform
 * @property {boolean} isBrowserRequested `npm start -- --browser`
 * @property {boolean} hasDisplay         always true off Linux; $DISPLAY or $WAYLAND_DISPLAY on it
 * @property {boolean} canDownload        false for checks that must not fetch (test:electron)
 * @property {object} electron
 * @property {string} electron.version            the declared version
 * @property {string | null} electron.binaryPath  its executable in .cache/electron, once downloaded
 * @property {boolean} electron.isDownloadSkipped ELECTRON_SKIP_BINARY_DOWNLOAD is set
 * @property {FetchOutcome | null} electron.fetch  this run's download, once tried
 * @property {SandboxFacts | null} sandbox   null until the binary exists
 * @property {object} sqlite
 * @property {boolean} sqlite.isElectronBuildPresent
 * @property {FetchOutcome | null} sqlite.fetch    this run's build or download, once tried
 */

/**
 * @typedef {{ kind: 'fetch-electron' }
 *   | { kind: 'fetch-sqlite' }
 *   | { kind: 'window', notes: string[] }
 *   | { kind: 'browser', reason: string, remedy: string | null }} StartDecision
 */

const FETCH_COMMAND = '`npm run electron:fetch`';

/**
 * The next step for `npm start`.
 * @param {StartFacts} facts
 * @returns {StartDecision}
 */
export function decideStart(facts) {
  const browser = (/** @type {string} */ reason, /** @type {string | null} */ remedy) =>
    /** @type {StartDecision} */ ({ kind: 'browser', reason, remedy });
  if (facts.isBrowserRequested) return browser('you asked for the browser (--browser)', null);
  if (!facts.hasDisplay)
    return browser('there is no display ($DISPLAY and $WAYLAND_DISPLAY are unset)', null);
  if (facts.electron.binaryPath === null) {
    const missing = missingBinary(facts);
    if (missing) return missing;
    return { kind: 'fetch-electron' };
  }
  const sandbox = sandboxBlock(facts.sandbox);
  if (sandbox) return sandbox;
  if (!facts.sqlite.isElectronBuildPresent) {
    if (facts.sqlite.fetch === null && facts.canDownload) return { kind: 'fetch-sqlite' };
    return { kind: 'window', notes: [historyOffNote(facts.sqlite.fetch)] };
  }
  return { kind: 'window', notes: [] };
}

/**
 * Why the missing binary will not be downloaded now, or null to download it.
 * @param {StartFacts} facts
 * @returns {StartDecision | null}
 */
function missingBinary(facts) {
  const { version, fetch, isDownloadSkipped } = facts.electron;
  const remedy = `${FETCH_COMMAND} downloads it (about 110 MB)`;
  if (isDownloadSkipped)
    return {
      kind: 'browser',
      reason: `ELECTRON_SKIP_BINARY_DOWNLOAD is set, so Electron ${version} is not downloaded`,
      remedy,
    };
  if (!facts.canDownload)
    return { kind: 'browser', reason: `Electron ${version}'s binary is not installed`, remedy };
  if (fetch === null) return null;
  const later = `${FETCH_COMMAND} gets it once you are online (or set ELECTRON_MIRROR)`;
  switch (fetch.kind) {
    case 'ok':
      return {
        kind: 'browser',
        reason: `Electron ${version} downloaded but its binary is missing`,
        remedy: `${FETCH_COMMAND} shows the installer's output`,
      };
    case 'offline':
      return {
        kind: 'browser',
        reason: `Electron ${version} could not be downloaded (${fetch.detail})`,
        remedy: later,
      };
    case 'timeout':
      return { kind: 'browser', reason: `Electron ${version}'s download timed out`, remedy: later };
    default:
      return {
        kind: 'browser',
        reason: `Electron ${version} could not be downloaded: ${fetch.detail}`,
        remedy: `${FETCH_COMMAND} shows the installer's output`,
      };
  }
}

/**
 * The AppArmor case: user namespaces restricted, and neither the setuid helper nor a profile.
 * @param {SandboxFacts | null} sandbox
 * @returns {StartDecision | null}
 */
function sandboxBlock(sandbox) {
  if (sandbox === null || !sandbox.isUsernsRestricted) return null;
  if (sandbox.isSetuidHelperReady || sandbox.hasAppArmorProfile) return null;
  const helper = sandbox.helperPath;
  return {
    kind: 'browser',
    reason:
      "AppArmor blocks the user namespaces Chromium's sandbox needs (kernel.apparmor_restrict_unprivileged_userns = 1), " +
      "and Electron's setuid sandbox helper is not set up, so the window would abort",
    remedy: `run once: sudo chown root:root ${helper} && sudo chmod 4755 ${helper} (or add an AppArmor profile: docs/electron.md)`,
  };
}

/**
 * The note beside a window whose history is off.
 * @param {FetchOutcome | null} fetch
 */
function historyOffNote(fetch) {
  const why = fetch === null ? 'not built yet' : fetch.detail;
  return `history is off in the desktop window this run: no SQLite build for Electron (${why}); ${FETCH_COMMAND} builds it`;
}

/**
 * The one line `npm start` prints when it serves the browser instead. Nothing opens a browser
 * (there may be no display to open one on): the line says to open the address the host prints.
 * @param {{ reason: string, remedy: string | null }} decision
 */
export function browserLine(decision) {
  const remedy = decision.remedy ? ` To get the window: ${decision.remedy}.` : '';
  return `Serving First Frame to your browser (open the address printed below) instead of the desktop window: ${decision.reason}.${remedy}`;
}

/**
 * @typedef {object} StartEffects
 * @property {(outcomes: { electronFetch: FetchOutcome | null, sqliteFetch: FetchOutcome | null }) => StartFacts} gather
 *   the facts as they are now, with this run's download outcomes recorded
 * @property {() => Promise<FetchOutcome>} fetchElectron
 * @property {() => Promise<FetchOutcome>} fetchSqlite
 */

/**
 * Asks decideStart until it answers window or browser, making the downloads it asks for. Each
 * download runs at most once a run (its outcome is recorded before the next question), so this
 * ends after at most three questions.
 * @param {StartEffects} effects
 * @returns {Promise<{ decision: Extract<StartDecision, { kind: 'window' | 'browser' }>, facts: StartFacts }>}
 */
export async function settleStart(effects) {
  /** @type {{ electronFetch: FetchOutcome | null, sqliteFetch: FetchOutcome | null }} */
  const outcomes = { electronFetch: null, sqliteFetch: null };
  for (;;) {
    const facts = effects.gather(outcomes);
    const decision = decideStart(facts);
    if (decision.kind === 'fetch-electron') outcomes.electronFetch = await effects.fetchElectron();
    else if (decision.kind === 'fetch-sqlite') outcomes.sqliteFetch = await effects.fetchSqlite();
    else return { decision, facts };
  }
}

import { describe, expect, it } from 'vitest';
import type { FetchOutcome } from '../../../../tools/setup/network.mjs';
import type { SandboxFacts } from '../../../../tools/setup/sandbox.mjs';
import { browserLine, decideStart, settleStart } from '../../../../tools/setup/start-decision.mjs';
import type { StartFacts } from '../../../../tools/setup/start-decision.mjs';

const BINARY = '/repo/.cache/electron/node_modules/electron/dist/electron';
const OFFLINE: FetchOutcome = { kind: 'offline', detail: 'github.com could not be reached' };
const OPEN_SANDBOX: SandboxFacts = {
  isUsernsRestricted: false,
  isSetuidHelperReady: false,
  hasAppArmorProfile: false,
  helperPath: '/repo/.cache/electron/node_modules/electron/dist/chrome-sandbox',
};

/**
 * A Linux desktop after `npm ci`, under npm 10 and npm 11 alike: Electron is not a dependency,
 * so no npm ran its installer (the repository's test in electron-release.test.ts keeps it so),
 * and the binary is missing.
 */
function afterNpmCi(): StartFacts {
  return {
    platform: 'linux',
    isBrowserRequested: false,
    hasDisplay: true,
    canDownload: true,
    electron: {
      version: '40.9.3',
      binaryPath: null,
      isDownloadSkipped: false,
      fetch: null,
    },
    sandbox: null,
    sqlite: { isElectronBuildPresent: false, fetch: null },
  };
}

/** An earlier `npm start` (or `npm run electron:fetch`) downloaded the binary into .cache/electron. */
function withBinary(): StartFacts {
  const facts = afterNpmCi();
  return { ...facts, electron: { ...facts.electron, binaryPath: BINARY }, sandbox: OPEN_SANDBOX };
}

/**
 * A fake machine for settleStart: downloads succeed or fail as told, and a successful one
 * changes what the next gather sees; counts the downloads made.
 */
function fakeMachine(start: StartFacts, electronResult: FetchOutcome, sqliteResult: FetchOutcome) {
  const calls = { electron: 0, sqlite: 0 };
  let facts = start;
  return {
    calls,
    effects: {
      gather: (outcomes: { electronFetch: FetchOutcome | null; sqliteFetch: FetchOutcome | null }) => ({
        ...facts,
        electron: { ...facts.electron, fetch: outcomes.electronFetch },
        sqlite: { ...facts.sqlite, fetch: outcomes.sqliteFetch },
      }),
      fetchElectron: async () => {
        calls.electron += 1;
        if (electronResult.kind === 'ok')
          facts = { ...facts, electron: { ...facts.electron, binaryPath: BINARY }, sandbox: OPEN_SANDBOX };
        return electronResult;
      },
      fetchSqlite: async () => {
        calls.sqlite += 1;
        if (sqliteResult.kind === 'ok')
          facts = { ...facts, sqlite: { ...facts.sqlite, isElectronBuildPresent: true } };
        return sqliteResult;
      },
    },
  };
}

describe('npm start decides between the window and the browser', () => {
  it('serves the browser without downloading anything when there is no display (this machine)', () => {
    const decision = decideStart({ ...afterNpmCi(), hasDisplay: false });
    expect(decision).toEqual({
      kind: 'browser',
      reason: 'there is no display ($DISPLAY and $WAYLAND_DISPLAY are unset)',
      remedy: null,
    });
    // Nothing opens a browser here (no display): the line sends the user to the printed address.
    expect(browserLine(decision as { reason: string; remedy: string | null })).toBe(
      'Serving First Frame to your browser (open the address printed below) instead of the desktop window: ' +
        'there is no display ($DISPLAY and $WAYLAND_DISPLAY are unset).',
    );
  });

  it('after npm ci (npm 10 or 11), online: downloads Electron, then SQLite for Electron, then opens the window with history on', async () => {
    const machine = fakeMachine(
      afterNpmCi(),
      { kind: 'ok', detail: 'downloaded in 9 s' },
      { kind: 'ok', detail: 'prebuilt' },
    );
    const { decision } = await settleStart(machine.effects);
    expect(decision).toEqual({ kind: 'window', notes: [] });
    expect(machine.calls).toEqual({ electron: 1, sqlite: 1 });
  });

  it('after npm ci (npm 10 or 11), offline: tries the download once and serves the browser in one line saying what fixes it', async () => {
    const machine = fakeMachine(afterNpmCi(), OFFLINE, OFFLINE);
    const { decision } = await settleStart(machine.effects);
    expect(machine.calls).toEqual({ electron: 1, sqlite: 0 });
    expect(decision.kind).toBe('browser');
    const line = browserLine(decision as { reason: string; remedy: string | null });
    expect(line).not.toContain('\n');
    expect(line).toBe(
      'Serving First Frame to your browser (open the address printed below) instead of the desktop window: ' +
        'Electron 40.9.3 could not be downloaded ' +
        '(github.com could not be reached). To get the window: `npm run electron:fetch` gets it once you are ' +
        'online (or set ELECTRON_MIRROR).',
    );
  });

  it('with the binary from an earlier start, only SQLite for Electron is fetched', async () => {
    const machine = fakeMachine(withBinary(), OFFLINE, { kind: 'ok', detail: 'prebuilt' });
    const { decision } = await settleStart(machine.effects);
    expect(decision).toEqual({ kind: 'window', notes: [] });
    expect(machine.calls).toEqual({ electron: 0, sqlite: 1 });
  });

  it('opens the window with history off, saying why, when SQLite for Electron cannot be had', async () => {
    const machine = fakeMachine(withBinary(), OFFLINE, {
      kind: 'offline',
      detail:
        'no prebuilt (github.com could not be reached), no headers (electronjs.org could not be reached)',
    });
    const { decision } = await settleStart(machine.effects);
    expect(decision.kind).toBe('window');
    expect(decision.kind === 'window' && decision.notes).toEqual([
      'history is off in the desktop window this run: no SQLite build for Electron (no prebuilt (github.com ' +
        'could not be reached), no headers (electronjs.org could not be reached)); `npm run electron:fetch` builds it',
    ]);
  });

  it('does not download when ELECTRON_SKIP_BINARY_DOWNLOAD is set (a user who opted out)', () => {
    const facts = afterNpmCi();
    const decision = decideStart({ ...facts, electron: { ...facts.electron, isDownloadSkipped: true } });
    expect(decision).toMatchObject({
      kind: 'browser',
      reason: expect.stringContaining('ELECTRON_SKIP_BINARY_DOWNLOAD'),
    });
  });

  it('names the npm registry when even the electron package could not be installed', async () => {
    const machine = fakeMachine(
      afterNpmCi(),
      { kind: 'offline', detail: 'registry.npmjs.org could not be reached' },
      OFFLINE,
    );
    const { decision } = await settleStart(machine.effects);
    expect(machine.calls).toEqual({ electron: 1, sqlite: 0 });
    expect(browserLine(decision as { reason: string; remedy: string | null })).toBe(
      'Serving First Frame to your browser (open the address printed below) instead of the desktop window: ' +
        'Electron 40.9.3 could not be downloaded ' +
        '(registry.npmjs.org could not be reached). To get the window: `npm run electron:fetch` gets it once ' +
        'you are online (or set ELECTRON_MIRROR).',
    );
  });

  it('sends a failure that is not the network to electron:fetch, which shows the installer output', () => {
    const facts = afterNpmCi();
    const decision = decideStart({
      ...facts,
      electron: { ...facts.electron, fetch: { kind: 'failed', detail: 'EACCES: permission denied' } },
    });
    expect(decision).toEqual({
      kind: 'browser',
      reason: 'Electron 40.9.3 could not be downloaded: EACCES: permission denied',
      remedy: "`npm run electron:fetch` shows the installer's output",
    });
  });

  it('opens the window at once when the binary and SQLite for Electron are there, downloading nothing', async () => {
    const ready = { ...withBinary(), sqlite: { isElectronBuildPresent: true, fetch: null } };
    const machine = fakeMachine(ready, OFFLINE, OFFLINE);
    expect((await settleStart(machine.effects)).decision).toEqual({ kind: 'window', notes: [] });
    expect(machine.calls).toEqual({ electron: 0, sqlite: 0 });
  });

  it('serves the browser without a display even when the binary is there', () => {
    expect(decideStart({ ...withBinary(), hasDisplay: false })).toMatchObject({
      kind: 'browser',
      reason: 'there is no display ($DISPLAY and $WAYLAND_DISPLAY are unset)',
    });
  });

  it('says a download that ran out of time timed out', () => {
    const facts = afterNpmCi();
    const decision = decideStart({
      ...facts,
      electron: { ...facts.electron, fetch: { kind: 'timeout', detail: 'no answer in time' } },
    });
    expect(decision).toMatchObject({ kind: 'browser', reason: "Electron 40.9.3's download timed out" });
  });

  it('never downloads when the caller may not (test:electron): a missing binary is the reason', () => {
    const decision = decideStart({ ...afterNpmCi(), canDownload: false });
    expect(decision).toMatchObject({ kind: 'browser', reason: "Electron 40.9.3's binary is not installed" });
    const noSqlite = decideStart({ ...withBinary(), canDownload: false });
    expect(noSqlite.kind).toBe('window');
  });

  it('serves the browser when asked (--browser), before anything else', () => {
    expect(decideStart({ ...withBinary(), isBrowserRequested: true })).toEqual({
      kind: 'browser',
      reason: 'you asked for the browser (--browser)',
      remedy: null,
    });
  });
});

describe('the Linux sandbox under AppArmor', () => {
  const restricted = (overrides: Partial<SandboxFacts>): StartFacts => ({
    ...withBinary(),
    sqlite: { isElectronBuildPresent: true, fetch: null },
    sandbox: { ...OPEN_SANDBOX, isUsernsRestricted: true, ...overrides },
  });

  it('detects the restriction with no setuid helper and no profile, and gives the exact commands', () => {
    const decision = decideStart(restricted({}));
    expect(decision.kind).toBe('browser');
    const line = browserLine(decision as { reason: string; remedy: string | null });
    expect(line).toContain('kernel.apparmor_restrict_unprivileged_userns = 1');
    expect(line).toContain(
      'sudo chown root:root /repo/.cache/electron/node_modules/electron/dist/chrome-sandbox && ' +
        'sudo chmod 4755 /repo/.cache/electron/node_modules/electron/dist/chrome-sandbox',
    );
  });

  it('opens the window when the setuid helper is set up, or a profile grants user namespaces', () => {
    expect(decideStart(restricted({ isSetuidHelperReady: true }))).toEqual({ kind: 'window', notes: [] });
    expect(decideStart(restricted({ hasAppArmorProfile: true }))).toEqual({ kind: 'window', notes: [] });
  });

  it('opens the window when AppArmor does not restrict user namespaces', () => {
    expect(decideStart(restricted({ isUsernsRestricted: false }))).toEqual({ kind: 'window', notes: [] });
  });
});

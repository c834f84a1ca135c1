// @ts-check
/**
 * `npm start`: the desktop window wherever it can be had, the browser otherwise. Downloads what
 * the window needs the first time (Electron's binary, SQLite for Electron), then opens it; when
 * that cannot be done (no display, offline, AppArmor) it says why and what fixes it in one line
 * and serves the same app to the browser. The decisions are tools/setup/start-decision.mjs.
 * `npm start -- --browser` serves the browser on purpose; other arguments after `--` go to the
 * headless host (`npm start -- --port 0`) or to Electron.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { fetchElectronBinary } from './setup/electron-binary.mjs';
import { readElectronPackage } from './setup/electron-release.mjs';
import { packageBin } from './setup/package-bin.mjs';
import { PREFIX } from './setup/quiet-step.mjs';
import { browserLine, settleStart } from './setup/start-decision.mjs';
import { gatherStartFacts } from './setup/start-facts.mjs';
import { fetchElectronSqlite } from './setup/sqlite-builds.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Runs a command with inherited stdio; resolves with its exit code.
 * @param {string} command
 * @param {string[]} args
 * @returns {Promise<number>}
 */
function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: 'inherit' });
    const forward = (/** @type {NodeJS.Signals} */ signal) => child.kill(signal);
    process.on('SIGINT', forward).on('SIGTERM', forward);
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward).off('SIGTERM', forward);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

/**
 * The window or the browser, after the downloads the decision asks for.
 * @param {boolean} isBrowserRequested
 */
function decide(isBrowserRequested) {
  const options = { repoDir: ROOT, env: process.env, isBrowserRequested, canDownload: true };
  return settleStart({
    gather: (outcomes) => gatherStartFacts({ ...options, ...outcomes }),
    fetchElectron: () => fetchElectronBinary({ repoDir: ROOT }),
    fetchSqlite: () => {
      const { version, abi } = readElectronPackage(ROOT);
      return fetchElectronSqlite({ repoDir: ROOT, electronVersion: version, abi: abi ?? 0 });
    },
  });
}

async function main() {
  const args = process.argv.slice(2);
  const isBrowserRequested = args.includes('--browser');
  const forwarded = args.filter((arg) => arg !== '--browser');
  const { decision, facts } = await decide(isBrowserRequested);
  const binaryPath = facts.electron.binaryPath;
  if (decision.kind === 'browser') console.log(browserLine(decision));
  else decision.notes.forEach((note) => console.log(`${PREFIX} ${note}`));
  const build = await run(process.execPath, [
    packageBin(ROOT, 'electron-vite', 'electron-vite'),
    'build',
    '--logLevel',
    'warn',
  ]);
  if (build !== 0) return build;
  if (decision.kind === 'window' && binaryPath) return run(binaryPath, ['.', ...forwarded]);
  return run(process.execPath, [packageBin(ROOT, 'tsx', 'tsx'), 'src-main/cli/serve.ts', ...forwarded]);
}

main().then((code) => process.exit(code));

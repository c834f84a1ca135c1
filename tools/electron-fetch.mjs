// @ts-check
// `npm run electron:fetch`: what the desktop window needs, fetched now instead of at the next
// `npm start`: Electron of the declared version in .cache/electron (its npm package, then its
// binary through the package's own installer) and better-sqlite3 built for Electron, in its own
// folder beside Node's build. Needs the network once; says in one line why not.
import { fileURLToPath } from 'node:url';
import { fetchElectronBinary } from './setup/electron-binary.mjs';
import { electronPackageDir, readElectronPackage } from './setup/electron-release.mjs';
import { PREFIX } from './setup/quiet-step.mjs';
import { electronSqliteDir, fetchElectronSqlite } from './setup/sqlite-builds.mjs';

const REPO_DIR = fileURLToPath(new URL('..', import.meta.url));

/** @param {string} message */
function fail(message) {
  console.error(`${PREFIX} ${message}`);
  return 1;
}

async function main() {
  const before = readElectronPackage(REPO_DIR);
  if (before.binaryPath === null) {
    const outcome = await fetchElectronBinary({
      repoDir: REPO_DIR,
      announceAfterMs: 0,
      isFailureShown: true,
    });
    if (outcome.kind !== 'ok')
      return fail(`Electron ${before.version} could not be downloaded: ${outcome.detail}.`);
    console.log(`${PREFIX} Electron ${before.version}: ${outcome.detail}`);
  } else console.log(`${PREFIX} Electron ${before.version}: already installed (${before.binaryPath})`);
  const { version, abi } = readElectronPackage(REPO_DIR);
  if (abi === null)
    return fail(
      `${electronPackageDir(REPO_DIR)}/abi_version is missing: delete .cache/electron and run this again.`,
    );
  console.log(`${PREFIX} getting SQLite for Electron ${version} (ABI ${abi})…`);
  const sqlite = await fetchElectronSqlite({
    repoDir: REPO_DIR,
    electronVersion: version,
    abi,
    isFailureShown: true,
  });
  if (sqlite.kind !== 'ok')
    return fail(`SQLite for Electron ${version} could not be built: ${sqlite.detail}.`);
  const dir = electronSqliteDir(REPO_DIR, version, process.platform, process.arch);
  console.log(`${PREFIX} SQLite for Electron ${version}: ${sqlite.detail}, in ${dir}`);
  console.log(`${PREFIX} ready: \`npm start\` opens the desktop window.`);
  return 0;
}

process.exitCode = await main();

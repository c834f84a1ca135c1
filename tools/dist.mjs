// @ts-check
// `npm run dist [-- --dir] [electron-builder arguments]`: the packaged app (AppImage and deb on
// Linux), as far as this machine allows, saying why it stops where it does:
//   1. the three bundles (electron-vite build);
//   2. electron-builder.js checked against electron-builder's own schema;
//   3. SQLite for Electron (built or downloaded once into .cache/electron-native);
//   4. Electron's binary (the same download `npm start` makes, into .cache/electron;
//      electron-builder.js's electronDist packs that copy instead of downloading its own);
//   5. electron-builder, then the package's layout checked (entries and workers in app.asar,
//      add-ons unpacked, SQLite for Electron and the models in resources).
// Without 3 or 4 (offline), step 5 runs with a stand-in Electron as a layout check only, and
// the command exits 1 with the reason. node_modules is never rebuilt (npmRebuild: false).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import config from '../electron-builder.js';
import {
  buildStandInLayout,
  checkUnpackedPackage,
  layoutSummary,
  unpackedResourcesDir,
} from './setup/dist-layout.mjs';
import { fetchElectronBinary, installElectronPackage } from './setup/electron-binary.mjs';
import { readElectronPackage } from './setup/electron-release.mjs';
import { packageBin } from './setup/package-bin.mjs';
import { PREFIX } from './setup/quiet-step.mjs';
import { electronSqliteDir, fetchElectronSqlite } from './setup/sqlite-builds.mjs';

const REPO_DIR = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
/** @param {string} line */
const say = (line) => console.log(`${PREFIX} ${line}`);

/**
 * Runs a command with inherited output; resolves with its exit code.
 * @param {string[]} args arguments to this Node
 * @returns {Promise<number>}
 */
function runNode(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: REPO_DIR, stdio: 'inherit' });
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

/** Step 2: electron-builder's own validation (its schema, the same call it makes at build time). */
async function validateConfig() {
  const { validateConfiguration } = require('app-builder-lib/out/util/config/config');
  const { DebugLogger } = require('builder-util');
  await validateConfiguration(config, new DebugLogger(false));
}

/** Steps 3 and 4: what packaging needs from the network; each missing one's reason. */
async function gatherNetworkParts() {
  /** @type {string[]} */
  const missing = [];
  let electron = readElectronPackage(REPO_DIR);
  if (!electron.isPackageInstalled) {
    // Its ABI (for step 3) and its installer (step 4) come with the npm package.
    const outcome = await installElectronPackage({
      repoDir: REPO_DIR,
      version: electron.version,
      isFailureShown: true,
    });
    if (outcome.kind !== 'ok')
      return { missing: [`no electron ${electron.version} npm package (${outcome.detail})`] };
    electron = readElectronPackage(REPO_DIR);
  }
  const sqliteFile = join(
    electronSqliteDir(REPO_DIR, electron.version, process.platform, process.arch),
    'better_sqlite3.node',
  );
  if (existsSync(sqliteFile)) say(`3/5 SQLite for Electron ${electron.version}: ${sqliteFile}`);
  else {
    say(`3/5 SQLite for Electron ${electron.version}: building it…`);
    const outcome = await fetchElectronSqlite({
      repoDir: REPO_DIR,
      electronVersion: electron.version,
      abi: electron.abi ?? 0,
      isFailureShown: true,
    });
    if (outcome.kind === 'ok') say(`3/5 SQLite for Electron: ${outcome.detail}`);
    else missing.push(`no SQLite build for Electron (${outcome.detail})`);
  }
  if (electron.binaryPath) say(`4/5 Electron ${electron.version}: ${electron.binaryPath}`);
  else {
    const outcome = await fetchElectronBinary({
      repoDir: REPO_DIR,
      announceAfterMs: 0,
      isFailureShown: true,
    });
    electron = readElectronPackage(REPO_DIR);
    if (outcome.kind === 'ok') say(`4/5 Electron ${electron.version}: ${outcome.detail}`);
    else missing.push(`no Electron ${electron.version} binary to package (${outcome.detail})`);
  }
  return { missing };
}

/**
 * Step 5's check, printed; returns the problems.
 * @param {string} resourcesDir
 */
function reportLayout(resourcesDir) {
  const { layout, problems } = checkUnpackedPackage(REPO_DIR, resourcesDir);
  layoutSummary(REPO_DIR, resourcesDir, layout).forEach((line) => say(line));
  problems.forEach((problem) => say(`layout problem: ${problem}`));
  return problems;
}

async function main() {
  const args = process.argv.slice(2);
  say('1/5 building the bundles (electron-vite)…');
  if (
    (await runNode([
      packageBin(REPO_DIR, 'electron-vite', 'electron-vite'),
      'build',
      '--logLevel',
      'warn',
    ])) !== 0
  )
    return 1;
  try {
    await validateConfig();
  } catch (error) {
    console.error(`${PREFIX} 2/5 electron-builder.js does not match electron-builder's schema:`);
    console.error(error instanceof Error ? error.message : String(error));
    return 1;
  }
  say("2/5 electron-builder.js matches electron-builder's schema");
  const { missing } = await gatherNetworkParts();
  if (missing.length > 0) {
    // The stand-in is one Linux executable; elsewhere only the reason is given.
    let verdict = '';
    if (process.platform === 'linux') {
      say('5/5 layout check only: electron-builder --dir with a stand-in Electron (release/layout-check)…');
      const problems = reportLayout(await buildStandInLayout(REPO_DIR, config));
      const others = problems.filter((problem) => !problem.startsWith('resources/electron-native'));
      if (others.length === 0) verdict = 'Everything else in the layout check is in place. ';
    }
    console.error(
      `${PREFIX} npm run dist stopped before packaging: ${missing.join('; ')}. ${verdict}` +
        'Run it where github.com and electronjs.org can be reached.',
    );
    return 1;
  }
  const builderArgs = ['--publish', 'never', ...args];
  say(`5/5 electron-builder ${builderArgs.join(' ')}`);
  if ((await runNode([packageBin(REPO_DIR, 'electron-builder', 'electron-builder'), ...builderArgs])) !== 0)
    return 1;
  const resourcesDir = unpackedResourcesDir(
    join(REPO_DIR, 'release', String(require('../package.json').version)),
  );
  if (resourcesDir === null || !existsSync(resourcesDir)) return 0;
  return reportLayout(resourcesDir).length === 0 ? 0 : 1;
}

// process.exit, not exitCode: electron-builder's exit hooks end the process with status 0.
process.exit(await main());

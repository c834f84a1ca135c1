// @ts-check
// The project's own install step (package.json `install`, run by `npm ci` after the
// dependencies): first one line of what it will do and how long, then SQLite for Node and the host-memory addon, each with a heartbeat and its
// compiler output kept back unless it fails; Electron's npm package (types and installer, from
// the npm registry, scripts off) into .cache/electron, never its binary; then one line per
// download the install did not make and the command that makes it. Never fails the install:
// without SQLite the app runs with history off, without the addon on its TypeScript fallback,
// without Electron's package in the browser until `npm start` installs it, and each says so.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildHostMemoryAddon, reasonToSkipAddon } from '../native/build.mjs';
import { installElectronPackage } from './setup/electron-binary.mjs';
import { readElectronPackage } from './setup/electron-release.mjs';
import { installNotes, installPlanLine } from './setup/install-plan.mjs';
import { PREFIX } from './setup/quiet-step.mjs';
import { ensureNodeSqlite, nodeSqliteBinary, sqliteBuildState } from './setup/sqlite-builds.mjs';

const REPO_DIR = fileURLToPath(new URL('..', import.meta.url));
const ORT_BIN = join(
  REPO_DIR,
  'node_modules',
  'onnxruntime-node',
  'bin',
  'napi-v6',
  process.platform,
  process.arch,
);

const before = readElectronPackage(REPO_DIR);
// First, before any step: npm's own download was silent, and the steps below can take minutes.
const plan = installPlanLine({
  isSqliteReady: sqliteBuildState(nodeSqliteBinary(REPO_DIR), Number(process.versions.modules)) === 'ready',
  isAddonBuilt:
    reasonToSkipAddon(
      process.env,
      process.platform,
      existsSync(join(REPO_DIR, 'node_modules', 'node-addon-api')),
    ) === null,
  isElectronPackagePresent: before.isPackageInstalled,
});
console.log(`${PREFIX} ${plan}`);
await ensureNodeSqlite({ repoDir: REPO_DIR });
await buildHostMemoryAddon();
const electronPackage = before.isPackageInstalled
  ? null
  : await installElectronPackage({ repoDir: REPO_DIR, version: before.version });
const notes = installNotes({
  electronVersion: before.version,
  electronPackage,
  isElectronBinaryPresent: readElectronPackage(REPO_DIR).binaryPath !== null,
  // onnxruntime-node 1.30 downloads GPU files only for linux/x64 (its install-metadata.js).
  hasCudaManifest: process.platform === 'linux' && process.arch === 'x64',
  hasCudaFiles: existsSync(join(ORT_BIN, 'libonnxruntime_providers_cuda.so')),
});
notes.forEach((note) => console.log(`${PREFIX} ${note}`));
console.log(`${PREFIX} installed: \`npm start\` opens the app.`);

// @ts-check
// The project's own install step (package.json `install`, run by `npm ci` after the
// dependencies): SQLite for Node and the host-memory addon, each with a heartbeat and its
// compiler output kept back unless it fails, then one line per download the install did not
// make and the command that makes it. Never fails the install: without SQLite the app runs with
// history off, without the addon on its TypeScript fallback, and both say so.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildHostMemoryAddon } from '../native/build.mjs';
import { readElectronPackage } from './setup/electron-binary.mjs';
import { installNotes, parseNpmVersion } from './setup/install-plan.mjs';
import { PREFIX } from './setup/quiet-step.mjs';
import { ensureNodeSqlite } from './setup/sqlite-builds.mjs';

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

await ensureNodeSqlite({ repoDir: REPO_DIR });
await buildHostMemoryAddon();
const electron = readElectronPackage(REPO_DIR);
const notes = installNotes({
  npmVersion: parseNpmVersion(process.env.npm_config_user_agent),
  electronVersion: electron.version,
  isElectronBinaryPresent: electron.binaryPath !== null,
  isElectronDownloadSkipped: Boolean(process.env.ELECTRON_SKIP_BINARY_DOWNLOAD),
  // onnxruntime-node 1.30 downloads GPU files only for linux/x64 (its install-metadata.js).
  hasCudaManifest: process.platform === 'linux' && process.arch === 'x64',
  hasCudaFiles: existsSync(join(ORT_BIN, 'libonnxruntime_providers_cuda.so')),
});
notes.forEach((note) => console.log(`${PREFIX} ${note}`));
console.log(`${PREFIX} installed: \`npm start\` opens the app.`);

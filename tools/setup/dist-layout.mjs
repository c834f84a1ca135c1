// @ts-check
// Reads an unpacked package (release/…/linux-unpacked) into the lists layoutProblems checks,
// and makes one without the Electron binary: electron-builder's own `--dir` build with a
// stand-in Electron distribution (one placeholder executable) and the fuses off, so the asar,
// the unpacked add-ons and the resources are exactly what the real build packs.
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { bundleEntries, layoutProblems, productionPackageFiles } from './package-layout.mjs';

/**
 * Every file under `dir`, as `/`-separated paths relative to it (empty when it does not exist).
 * @param {string} dir
 * @returns {string[]}
 */
export function listFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true })
    .map((name) => String(name))
    .filter((name) => statSync(join(dir, name)).isFile())
    .map((name) => name.split(sep).join('/'));
}

/**
 * The native files the app loads for this platform and arch, relative to the repository:
 * onnxruntime-node's binding and the shared library beside it, and our addon when it is built.
 * @param {string} repoDir
 * @param {string} platform
 * @param {string} arch
 */
export function nativeFilesFor(repoDir, platform, arch) {
  const ortDir = `node_modules/onnxruntime-node/bin/napi-v6/${platform}/${arch}`;
  const ort = listFiles(join(repoDir, ortDir)).map((name) => `${ortDir}/${name}`);
  const addon = 'native/build/Release/ff_host_memory.node';
  return existsSync(join(repoDir, addon)) ? [...ort, addon] : ort;
}

/**
 * Lists an unpacked Linux or Windows package's resources folder and checks it.
 * @param {string} repoDir
 * @param {string} resourcesDir the folder holding app.asar
 */
export function checkUnpackedPackage(repoDir, resourcesDir) {
  const require = createRequire(join(repoDir, 'package.json'));
  /** @type {{ listPackage(path: string, options: object): string[] }} */
  const asar = require('@electron/asar');
  const asarFiles = asar.listPackage(join(resourcesDir, 'app.asar'), { isPack: false }).map((path) =>
    path
      .replace(/^[\\/]/, '')
      .split('\\')
      .join('/'),
  );
  const layout = {
    asarFiles,
    unpackedFiles: listFiles(join(resourcesDir, 'app.asar.unpacked')),
    resourceFiles: listFiles(resourcesDir).filter((path) => !path.startsWith('app.asar')),
    bundleEntries: bundleEntries(repoDir),
    packageFiles: productionPackageFiles(repoDir),
    nativeFiles: nativeFilesFor(repoDir, process.platform, process.arch),
  };
  return { layout, problems: layoutProblems(layout) };
}

/**
 * The `--dir` build with a stand-in Electron (Linux only: the placeholder is one executable
 * named `electron`). Writes into `<repo>/release/layout-check` and returns its resources folder.
 * @param {string} repoDir
 * @param {import('electron-builder').Configuration} config
 */
export async function buildStandInLayout(repoDir, config) {
  const require = createRequire(join(repoDir, 'package.json'));
  /** @type {typeof import('electron-builder')} */
  const builder = require('electron-builder');
  const outDir = join(repoDir, 'release', 'layout-check');
  const standIn = join(outDir, 'stand-in-electron');
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(standIn, { recursive: true });
  writeFileSync(
    join(standIn, 'electron'),
    '#!/bin/sh\necho "stand-in for the Electron binary (layout check only)"\n',
    {
      mode: 0o755,
    },
  );
  await builder.build({
    projectDir: repoDir,
    targets: builder.Platform.LINUX.createTarget('dir', builder.Arch.x64),
    publish: 'never',
    config: {
      ...config,
      electronDist: standIn,
      // Fuses are flipped in the real binary; a placeholder has none.
      electronFuses: null,
      directories: { ...config.directories, output: join(outDir, 'out') },
    },
  });
  return join(outDir, 'out', 'linux-unpacked', 'resources');
}

/**
 * The resources folder of a real `--dir`-style output for this platform, or null (macOS keeps
 * it inside the .app bundle, which this check does not read).
 * @param {string} outputDir electron-builder's output folder (release/<version>)
 */
export function unpackedResourcesDir(outputDir) {
  if (process.platform === 'linux') return join(outputDir, 'linux-unpacked', 'resources');
  if (process.platform === 'win32') return join(outputDir, 'win-unpacked', 'resources');
  return null;
}

/**
 * A short listing for the console: how many files, the bundle entries found, the native files.
 * @param {string} repoDir
 * @param {string} resourcesDir
 * @param {{ asarFiles: string[], unpackedFiles: string[], bundleEntries: string[] }} layout
 */
export function layoutSummary(repoDir, resourcesDir, layout) {
  const asarSet = new Set(layout.asarFiles);
  return [
    `app.asar (${relative(repoDir, resourcesDir)}): ${layout.asarFiles.length} entries`,
    ...layout.bundleEntries.map((entry) => `  ${asarSet.has(entry) ? 'has' : 'LACKS'} ${entry}`),
    `app.asar.unpacked: ${layout.unpackedFiles.filter((file) => /\.(node|so(\.\d+)*|dylib|dll)$/.test(file)).join(', ')}`,
  ];
}

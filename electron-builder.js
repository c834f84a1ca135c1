// @ts-check
// electron-builder configuration (found by name: `electron-builder` reads electron-builder.js).
// Packages the three electron-vite bundles (out/), the production node_modules and the native
// add-ons into an asar, the bundled models into resources/models and SQLite built for Electron
// into resources/electron-native, for Linux (AppImage, deb), macOS (dmg, zip) and Windows
// (nsis). `npm run dist` (tools/dist.mjs) builds the bundles and SQLite for Electron first and
// says why it stops where it cannot go on; see docs/electron.md.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { declaredElectronVersion, electronPackageDir } from './tools/setup/electron-release.mjs';

const REPO_DIR = fileURLToPath(new URL('.', import.meta.url));

/**
 * package.json's electronVersion: Electron is not a dependency (tools/setup/electron-release.mjs),
 * so electron-builder is told the version rather than finding it in node_modules; the Electron
 * build of better-sqlite3 is kept per version.
 */
const ELECTRON_VERSION = declaredElectronVersion(REPO_DIR);

/**
 * Where tools/setup/sqlite-builds.mjs puts better-sqlite3 built for Electron (`${platform}` is
 * the building machine's, `${arch}` the target's).
 */
export const ELECTRON_SQLITE_FROM = `.cache/electron-native/electron-${ELECTRON_VERSION}-\${platform}-\${arch}`;

/** @type {import('electron-builder').Configuration} */
const config = {
  appId: 'dev.firstframe.app',
  productName: 'First Frame',
  executableName: 'first-frame',
  directories: { output: 'release/${version}', buildResources: 'resources/build' },
  electronVersion: ELECTRON_VERSION,
  // The binary `npm start` / `npm run electron:fetch` / `npm run dist` downloaded into
  // .cache/electron: electron-builder packs that copy instead of downloading its own.
  electronDist: join(electronPackageDir(REPO_DIR), 'dist'),
  // The bundles and the addon; electron-builder adds the production dependencies itself, of
  // which only what runs is kept (onnxruntime-node's binaries for the target platform and arch,
  // better-sqlite3's JavaScript without its Node build, sources or build intermediates).
  files: [
    'out/**',
    'package.json',
    '!out/**/*.map',
    'native/build/Release/ff_host_memory.node',
    '!node_modules/onnxruntime-node/bin/napi-v*/!(${platform})/**',
    '!node_modules/onnxruntime-node/bin/napi-v*/${platform}/!(${arch})/**',
    '!node_modules/better-sqlite3/{deps,src,build}/**',
    '!node_modules/**/*.map',
  ],
  extraResources: [
    // process.resourcesPath/models: the bundled model folders (app-paths.ts reads them there).
    { from: 'resources/models', to: 'models', filter: ['**/*'] },
    // process.resourcesPath/electron-native/better_sqlite3.node, loaded with better-sqlite3's
    // nativeBinding option (app-paths.ts). Node's build in node_modules is left out above.
    { from: ELECTRON_SQLITE_FROM, to: 'electron-native', filter: ['better_sqlite3.node'] },
  ],
  asar: true,
  // Native code cannot be loaded from inside an asar: unpack every add-on and the shared
  // libraries onnxruntime-node loads beside its binding (libonnxruntime.so.1, .dylib, .dll).
  asarUnpack: ['**/*.node', 'node_modules/onnxruntime-node/bin/**', 'native/build/Release/**'],
  // Packaging never rebuilds node_modules (which stays Node's): the Electron build of the one
  // ABI-bound module comes from extraResources; the N-API modules load in both runtimes.
  npmRebuild: false,
  buildDependenciesFromSource: false,
  // Package-time switches in the Electron binary: no ELECTRON_RUN_AS_NODE, NODE_OPTIONS or
  // --inspect backdoors, cookies encrypted at rest, app code only from the integrity-checked
  // asar, and file:// gets no extra privileges (the renderer is served over app://).
  electronFuses: {
    runAsNode: false,
    enableCookieEncryption: true,
    enableNodeOptionsEnvironmentVariable: false,
    enableNodeCliInspectArguments: false,
    enableEmbeddedAsarIntegrityValidation: true,
    onlyLoadAppFromAsar: true,
    grantFileProtocolExtraPrivileges: false,
  },
  linux: {
    target: ['AppImage', 'deb'],
    // A folder of `<size>x<size>.png` (tools/render-icons.mjs renders them from icon.svg).
    icon: 'resources/icons',
    category: 'Development',
    synopsis: 'Local LLM chat with a live first-token latency dashboard',
    maintainer: 'First Frame developers <first-frame@localhost>',
  },
  deb: { priority: 'optional' },
  mac: {
    target: ['dmg', 'zip'],
    icon: 'resources/icons/icon.png',
    category: 'public.app-category.developer-tools',
    hardenedRuntime: true,
  },
  win: { target: ['nsis'], icon: 'resources/icons/icon.png' },
  nsis: { oneClick: false, perMachine: false, allowToChangeInstallationDirectory: true },
  publish: null,
};

export default config;

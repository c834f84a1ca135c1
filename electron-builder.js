// electron-builder configuration (found by name: `electron-builder` reads electron-builder.js).
// Packages the three electron-vite bundles (out/), the production node_modules and the native
// add-ons into an asar, the bundled models into resources/models, for Linux (AppImage, deb),
// macOS (dmg, zip) and Windows (nsis). Run `npm run build` first: packaging needs the Electron
// binary (downloaded by electron-builder), the bundles do not. See docs/electron.md.

/** @type {import('electron-builder').Configuration} */
const config = {
  appId: 'dev.firstframe.app',
  productName: 'First Frame',
  executableName: 'first-frame',
  directories: { output: 'release/${version}', buildResources: 'resources/build' },
  // The bundles and the addon; electron-builder adds the production dependencies itself, of
  // which only what runs is kept (onnxruntime-node's binaries for the target platform and arch,
  // better-sqlite3 without its SQLite sources and build intermediates).
  files: [
    'out/**',
    'package.json',
    '!out/**/*.map',
    'native/build/Release/ff_host_memory.node',
    '!node_modules/onnxruntime-node/bin/napi-v*/!(${platform})/**',
    '!node_modules/onnxruntime-node/bin/napi-v*/${platform}/!(${arch})/**',
    '!node_modules/better-sqlite3/{deps,src}/**',
    '!node_modules/better-sqlite3/build/{deps,*.target.mk,Makefile,config.gypi}',
    '!node_modules/better-sqlite3/build/Release/{obj,obj.target,.deps}/**',
    '!node_modules/better-sqlite3/build/Release/test_extension.node',
    '!node_modules/**/*.map',
  ],
  // process.resourcesPath/models: the bundled model folders (app-paths.ts reads them there).
  extraResources: [{ from: 'resources/models', to: 'models', filter: ['**/*'] }],
  asar: true,
  // Native code cannot be loaded from inside an asar: unpack every add-on and the shared
  // libraries onnxruntime-node loads beside its binding (libonnxruntime.so.1, .dylib, .dll).
  asarUnpack: ['**/*.node', 'node_modules/onnxruntime-node/bin/**', 'native/build/Release/**'],
  // Rebuild better-sqlite3 (ABI-bound) for this Electron inside the packaged copy; the N-API
  // modules (onnxruntime-node, ff_host_memory) are loaded as they are.
  npmRebuild: true,
  buildDependenciesFromSource: false,
  // Package-time switches in the Electron binary: no ELECTRON_RUN_AS_NODE, NODE_OPTIONS or
  // --inspect backdoors, app code only from the (integrity-checked) asar, and file:// gets no
  // extra privileges (the renderer is served over app://).
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
    category: 'Development',
    synopsis: 'Local LLM chat with a live first-token latency dashboard',
    // deb needs a maintainer; package.json has no `author` to take it from.
    maintainer: 'First Frame developers',
  },
  deb: { priority: 'optional' },
  mac: {
    target: ['dmg', 'zip'],
    category: 'public.app-category.developer-tools',
    hardenedRuntime: true,
  },
  win: { target: ['nsis'] },
  nsis: { oneClick: false, perMachine: false, allowToChangeInstallationDirectory: true },
  publish: null,
};

export default config;

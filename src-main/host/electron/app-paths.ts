import { join } from 'node:path';

// Where the Electron host keeps and finds things. Pure (the inputs come from app.getPath,
// process.resourcesPath and the main bundle's own folder), so the rules are tested without
// Electron.

/** What Electron tells us about the install and the user. */
export interface AppPathInputs {
  /** app.getPath('userData'): per-user, survives updates. */
  userDataDir: string;
  isPackaged: boolean;
  /** process.resourcesPath: the packaged app's resources folder (extraResources land here). */
  resourcesPath: string;
  /** app.getAppPath(): the repository root in development, app.asar when packaged. */
  appPath: string;
  /** The folder of the running main bundle (out/main). */
  mainBundleDir: string;
  /** process.versions.electron, process.platform, process.arch: which SQLite build to load. */
  electronVersion: string;
  platform: string;
  arch: string;
}

/** Every path the host hands to the core, the window or the menu. */
export interface AppPaths {
  /** The core's data folder: database, user models folder, caches. */
  dataDir: string;
  /** Model folders the user adds (`<userData>/models`); the menu opens it. */
  userModelsDir: string;
  /** The bundled models: `<resources>/models` packaged, `<repo>/resources/models` in development. */
  bundledModelsDir: string;
  /** The built renderer served over app:// (out/renderer). */
  rendererDir: string;
  /** The CommonJS preload bundle (out/preload/index.cjs). */
  preloadPath: string;
  /**
   * better-sqlite3 built for this Electron, loaded through its `nativeBinding` option (the copy
   * in node_modules is Node's): `<resources>/electron-native` packaged, the repository's
   * `.cache/electron-native/…` in development (tools/setup/sqlite-builds.mjs writes both).
   */
  sqliteBindingPath: string;
}

/** Resolves every host path from Electron's facts. */
export function resolveAppPaths(inputs: AppPathInputs): AppPaths {
  return {
    dataDir: inputs.userDataDir,
    userModelsDir: join(inputs.userDataDir, 'models'),
    bundledModelsDir: inputs.isPackaged
      ? join(inputs.resourcesPath, 'models')
      : join(inputs.appPath, 'resources', 'models'),
    rendererDir: join(inputs.mainBundleDir, '..', 'renderer'),
    preloadPath: join(inputs.mainBundleDir, '..', 'preload', 'index.cjs'),
    sqliteBindingPath: inputs.isPackaged
      ? join(inputs.resourcesPath, 'electron-native', 'better_sqlite3.node')
      : electronSqliteBindingPath(inputs.appPath, inputs.electronVersion, inputs.platform, inputs.arch),
  };
}

/**
 * Where tools/setup/sqlite-builds.mjs puts better-sqlite3 built for one Electron version in a
 * checkout, beside (not over) the Node build in node_modules, so tests and the headless host
 * keep working. A packaged app carries the same file in its resources.
 */
export function electronSqliteBindingPath(
  repoDir: string,
  electronVersion: string,
  platform: string,
  arch: string,
): string {
  return join(
    repoDir,
    '.cache',
    'electron-native',
    `electron-${electronVersion}-${platform}-${arch}`,
    'better_sqlite3.node',
  );
}

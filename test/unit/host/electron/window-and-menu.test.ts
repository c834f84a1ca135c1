import { join } from 'node:path';
import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it, vi } from 'vitest';
import { electronSqliteBindingPath, resolveAppPaths } from '../../../../src-main/host/electron/app-paths';
import { buildMenuTemplate } from '../../../../src-main/host/electron/menu';
import { mainWindowOptions } from '../../../../src-main/host/electron/window-options';
import { electronSqliteDir } from '../../../../tools/setup/sqlite-builds.mjs';

describe('mainWindowOptions', () => {
  it('isolates and sandboxes the renderer, with no Node and web security on', () => {
    const prefs = mainWindowOptions('/app/out/preload/index.cjs', ['app.status']).webPreferences!;
    expect(prefs).toMatchObject({
      preload: '/app/out/preload/index.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      additionalArguments: ['--ff-methods=app.status'],
    });
  });
});

describe('buildMenuTemplate', () => {
  const roles = (template: MenuItemConstructorOptions[]) => template.map((item) => item.role ?? item.label);

  it('has the usual menus on Linux/Windows and on macOS the app menu too', () => {
    const actions = { openModelsFolder: () => {}, openDataFolder: () => {} };
    expect(roles(buildMenuTemplate('linux', actions))).toEqual([
      'File',
      'editMenu',
      'viewMenu',
      'windowMenu',
      'help',
    ]);
    expect(roles(buildMenuTemplate('darwin', actions))).toEqual([
      'appMenu',
      'File',
      'editMenu',
      'viewMenu',
      'windowMenu',
      'help',
    ]);
  });

  it('"Open Models Folder" opens the user models folder', () => {
    const openModelsFolder = vi.fn();
    const file = buildMenuTemplate('linux', { openModelsFolder, openDataFolder: () => {} })[0]!;
    const item = (file.submenu as MenuItemConstructorOptions[]).find((entry) =>
      /open models folder/i.test(entry.label ?? ''),
    );
    (item!.click as () => void)();
    expect(openModelsFolder).toHaveBeenCalledTimes(1);
    expect((file.submenu as MenuItemConstructorOptions[]).at(-1)!.role).toBe('quit');
  });
});

describe('resolveAppPaths', () => {
  const base = {
    userDataDir: '/home/u/.config/First Frame',
    resourcesPath: '/opt/ff/resources',
    appPath: '/repo',
    mainBundleDir: '/repo/out/main',
    electronVersion: '40.9.3',
    platform: 'linux',
    arch: 'x64',
  };

  it('keeps data and user models in userData; bundled models from the repo in development', () => {
    const paths = resolveAppPaths({ ...base, isPackaged: false });
    expect(paths.dataDir).toBe(base.userDataDir);
    expect(paths.userModelsDir).toBe(join(base.userDataDir, 'models'));
    expect(paths.bundledModelsDir).toBe(join('/repo', 'resources', 'models'));
    expect(paths.preloadPath).toBe(join('/repo', 'out', 'preload', 'index.cjs'));
    expect(paths.rendererDir).toBe(join('/repo', 'out', 'renderer'));
  });

  it('reads bundled models from the resources folder when packaged', () => {
    expect(resolveAppPaths({ ...base, isPackaged: true }).bundledModelsDir).toBe(
      join('/opt/ff/resources', 'models'),
    );
  });

  it('loads SQLite for Electron from where tools/setup/sqlite-builds.mjs writes it in a checkout', () => {
    const dir = electronSqliteDir('/repo', '40.9.3', 'linux', 'x64');
    expect(electronSqliteBindingPath('/repo', '40.9.3', 'linux', 'x64')).toBe(
      join(dir, 'better_sqlite3.node'),
    );
    expect(resolveAppPaths({ ...base, isPackaged: false }).sqliteBindingPath).toBe(
      join(dir, 'better_sqlite3.node'),
    );
  });

  it('loads SQLite for Electron from the resources folder when packaged, and keeps data in userData', () => {
    const paths = resolveAppPaths({ ...base, isPackaged: true });
    expect(paths.sqliteBindingPath).toBe(join('/opt/ff/resources', 'electron-native', 'better_sqlite3.node'));
    expect(paths.dataDir).toBe(base.userDataDir);
  });
});

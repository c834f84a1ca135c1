import type { MenuItemConstructorOptions } from 'electron';

// The application menu as a pure template (Menu.buildFromTemplate happens in main.ts): the
// usual roles (app on macOS, file, edit, view, window, help) plus the app's folders.

/** What the menu's own items do. */
export interface MenuActions {
  /** Opens the user models folder (`<userData>/models`) in the OS file manager. */
  openModelsFolder(): void;
  /** Opens the data folder (database, caches) in the OS file manager. */
  openDataFolder(): void;
}

/** The menu template for `platform` (process.platform); macOS gets the app menu and `close`. */
export function buildMenuTemplate(platform: string, actions: MenuActions): MenuItemConstructorOptions[] {
  const isMac = platform === 'darwin';
  const fileMenu: MenuItemConstructorOptions = {
    label: 'File',
    submenu: [
      {
        label: 'Open Models Folder',
        accelerator: 'CmdOrCtrl+Shift+M',
        click: () => actions.openModelsFolder(),
      },
      { label: 'Open Data Folder', click: () => actions.openDataFolder() },
      { type: 'separator' },
      isMac ? { role: 'close' } : { role: 'quit' },
    ],
  };
  const helpMenu: MenuItemConstructorOptions = {
    role: 'help',
    submenu: isMac
      ? [{ label: 'Open Data Folder', click: () => actions.openDataFolder() }]
      : [{ role: 'about' }],
  };
  return [
    ...(isMac ? [{ role: 'appMenu' } as MenuItemConstructorOptions] : []),
    fileMenu,
    { role: 'editMenu' },
    { role: 'viewMenu' },
    { role: 'windowMenu' },
    helpMenu,
  ];
}

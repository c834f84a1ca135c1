import type { BrowserWindowConstructorOptions } from 'electron';

// The main window's options, pure so a test can pin every security flag: an isolated,
// sandboxed renderer with no Node, web security on, no webviews, and only our preload.

/** The window's size and look, and the locked-down webPreferences. */
export function mainWindowOptions(preloadPath: string): BrowserWindowConstructorOptions {
  return {
    width: 1360,
    height: 880,
    minWidth: 900,
    minHeight: 600,
    title: 'First Frame',
    show: false,
    backgroundColor: '#111418',
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
      spellcheck: false,
    },
  };
}

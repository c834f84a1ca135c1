import type { BrowserWindowConstructorOptions } from 'electron';
import type { MethodName } from '../../service/contract/methods';
import { methodsArgument } from './ipc-channels';

// The main window's options, pure so a test can pin every security flag: an isolated,
// sandboxed renderer with no Node, web security on, no webviews, and only our preload.

/** The window's size and look, and the locked-down webPreferences; `methods` go to the preload. */
export function mainWindowOptions(
  preloadPath: string,
  methods: readonly MethodName[],
): BrowserWindowConstructorOptions {
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
      additionalArguments: [methodsArgument(methods)],
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

import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BrowserWindow, Menu, app, dialog, ipcMain, protocol, session, shell } from 'electron';
import { METHOD_NAMES } from '../../service/contract/methods';
import type { ServiceApi } from '../../service/contract/service-api';
import type { Core } from '../../service/core-options';
import { createCore } from '../../service/create-core';
import { createApiToggle, type ApiEnableRequest } from './api-toggle';
import { startUtilityChild } from './utility-child';
import { registerAppScheme, serveAppProtocol } from './app-protocol';
import { resolveAppPaths, type AppPaths } from './app-paths';
import { buildContentSecurityPolicy } from './csp';
import { deferService } from './deferred-service';
import { createExternalLinkOpener } from './external-links';
import { forwardEvents } from './event-forwarder';
import { hardenSession, hardenWebContents, type HardenOptions } from './harden';
import { registerIpcHandlers } from './ipc-handlers';
import { createSavePathPicker } from './save-dialog';
import { claimSingleInstance, installQuitGate } from './lifecycle';
import type { QuitGate } from './lifecycle';
import { buildMenuTemplate } from './menu';
import { chooseRendererSource, type RendererSource } from './renderer-source';
import { mainWindowOptions } from './window-options';
import { guardProcess } from '../process-guard';

// Electron main process entry: wiring only. The rules live in pure modules beside this one;
// the core (runtime, store, service) comes from createCore and knows nothing of Electron.

const MAIN_BUNDLE_DIR = dirname(fileURLToPath(import.meta.url));
const log = (message: string): void => console.log(`[first-frame] ${message}`);

let mainWindow: BrowserWindow | null = null;

/** What start() resolves once and the ready-time wiring uses. */
interface HostContext {
  paths: AppPaths;
  source: RendererSource;
  hardening: HardenOptions;
  core: Promise<Core>;
  service: ServiceApi;
  /** Every quit goes through it, the one after an uncaught error included. */
  gate: QuitGate;
}

/** Brings the existing window forward (a second launch, or the dock icon). */
function focusMainWindow(): void {
  if (mainWindow === null || mainWindow.isDestroyed()) return;
  if (mainWindow.isMinimized()) mainWindow.restore();
  mainWindow.show();
  mainWindow.focus();
}

/** Opens a folder in the OS file manager, creating it first (openPath fails on a missing path). */
function openFolder(dir: string): void {
  mkdirSync(dir, { recursive: true });
  void shell.openPath(dir).then((error) => {
    if (error !== '') log(`could not open ${dir}: ${error}`);
  });
}

/** Creates the one window, loads our page into it and forwards events to it until it closes. */
function openMainWindow({ paths, source, service }: HostContext): void {
  const window = new BrowserWindow(mainWindowOptions(paths.preloadPath, METHOD_NAMES));
  window.once('ready-to-show', () => window.show());
  const stopForwarding = forwardEvents(service, window.webContents, { log });
  window.on('closed', () => {
    stopForwarding();
    if (mainWindow === window) mainWindow = null;
  });
  mainWindow = window;
  window.loadURL(source.url).catch((error: unknown) => log(`could not load ${source.url}: ${String(error)}`));
}

/**
 * The Electron build of better-sqlite3 (node_modules holds Node's, which Electron cannot load),
 * or undefined with a log line saying history will be off and what builds it.
 */
function findSqliteBinding(paths: AppPaths): string | undefined {
  if (existsSync(paths.sqliteBindingPath)) {
    log(`SQLite for Electron: ${paths.sqliteBindingPath}`);
    return paths.sqliteBindingPath;
  }
  log(
    `no SQLite build for Electron at ${paths.sqliteBindingPath}: history is off this run` +
      (app.isPackaged ? ' (the package is incomplete)' : '; `npm run electron:fetch` builds it'),
  );
  return undefined;
}

/** A native question the page cannot answer for itself: the two answers, Cancel by default. */
async function askUser(message: string, detail: string, yes: string): Promise<boolean> {
  const options = {
    type: 'question' as const,
    message,
    detail,
    buttons: ['Cancel', yes],
    defaultId: 0,
    cancelId: 0,
  };
  const window = mainWindow && !mainWindow.isDestroyed() ? mainWindow : null;
  const { response } = await (window
    ? dialog.showMessageBox(window, options)
    : dialog.showMessageBox(options));
  return response === 1;
}

/** Shows the whole link before it leaves the app. */
function confirmLink(url: string): Promise<boolean> {
  return askUser('Open this link in your web browser?', url, 'Open in browser');
}

/** Shows where the API will listen and whether a key guards it before it turns on. */
function confirmApiEnable(request: ApiEnableRequest): Promise<boolean> {
  const guard = request.hasApiKey
    ? 'Programs must send the bearer key you entered.'
    : 'No key is set: any program on this computer will be able to use the model.';
  return askUser(
    'Turn on the OpenAI-compatible API?',
    `It will listen on ${request.baseUrl} (this computer only). ${guard}`,
    'Turn on',
  );
}

/** Reports a core that could not start; the window stays up and every call answers `unavailable`. */
function reportCoreFailure(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  log(`core failed to start: ${message}`);
  dialog.showErrorBox('First Frame could not start its engine', message);
}

/** After `ready`: session rules, the app:// files, the menu, the window. */
function onReady(context: HostContext): void {
  const { paths, source, hardening, core } = context;
  const contentSecurityPolicy = buildContentSecurityPolicy(
    source.kind === 'dev-server' ? source.origin : null,
  );
  hardenSession(session.defaultSession, hardening, contentSecurityPolicy);
  serveAppProtocol(protocol, paths.rendererDir, contentSecurityPolicy);
  const template = buildMenuTemplate(process.platform, {
    openModelsFolder: () => openFolder(paths.userModelsDir),
    openDataFolder: () => openFolder(paths.dataDir),
  });
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
  openMainWindow(context);
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) openMainWindow(context);
  });
  core.then((built) => {
    built.describe().forEach(log);
    guardProcess({
      log: built.log,
      logPath: built.log.path,
      tell: (message) => {
        log(message);
        dialog.showErrorBox('First Frame stopped', message);
      },
      // Through the quit gate: the core closes in order (history flushed), then the process exits 1.
      stop: () => context.gate.quitWithFailure(),
    });
    built.prefetchDefault().then(
      (modelId) => modelId && log(`model ${modelId} is resident`),
      (error: Error) => log(`could not prefetch the default model: ${error.message}`),
    );
  }, reportCoreFailure);
}

/** Everything that must happen before `ready`, then the rest once Electron is ready. */
function start(): void {
  const paths = resolveAppPaths({
    userDataDir: app.getPath('userData'),
    isPackaged: app.isPackaged,
    resourcesPath: process.resourcesPath,
    appPath: app.getAppPath(),
    mainBundleDir: MAIN_BUNDLE_DIR,
    electronVersion: process.versions.electron,
    platform: process.platform,
    arch: process.arch,
  });
  const source = chooseRendererSource(app.isPackaged, process.env.ELECTRON_RENDERER_URL);
  const sqliteNativeBinding = findSqliteBinding(paths);
  const openLink = createExternalLinkOpener({
    confirm: confirmLink,
    open: (url) => shell.openExternal(url),
    log,
  });
  const hardening: HardenOptions = {
    appOrigins: [source.origin],
    openExternal: (url) => void openLink(url),
    log,
  };
  // The core builds while Electron starts; calls made before it is ready wait for it.
  const core = createCore({
    dataDir: paths.dataDir,
    bundledModelsDir: paths.bundledModelsDir,
    host: 'electron',
    sqliteNativeBinding,
    startChild: startUtilityChild,
    apiServer: (openai) => createApiToggle(openai, log, confirmApiEnable),
    openFolder: async (dir) => {
      mkdirSync(dir, { recursive: true });
      return (await shell.openPath(dir)) || null;
    },
    pickSavePath: createSavePathPicker({
      showSaveDialog: (options) =>
        mainWindow && !mainWindow.isDestroyed()
          ? dialog.showSaveDialog(mainWindow, options)
          : dialog.showSaveDialog(options),
      downloadsDir: () => app.getPath('downloads'),
    }),
  });
  // Not swallowed: the deferred service answers every call with why the core did not start.
  core.catch(() => undefined);
  const service = deferService(core.then((built) => built.service));
  const gate = installQuitGate(app, {
    close: () =>
      core.then(
        (built) => built.close(),
        () => undefined,
      ),
    log,
  });
  registerIpcHandlers({
    ipcMain,
    service,
    appOrigins: hardening.appOrigins,
    isAccepting: gate.isAccepting,
  });
  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents, hardening));
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => app.quit());
  void app.whenReady().then(() => onReady({ paths, source, hardening, core, service, gate }));
}

// A separate data folder for one run (the Electron tests, a second profile); before the
// single-instance lock, which is held per data folder.
if (process.env.FIRST_FRAME_DATA_DIR) app.setPath('userData', process.env.FIRST_FRAME_DATA_DIR);
registerAppScheme(protocol);
app.enableSandbox();
if (claimSingleInstance(app, focusMainWindow)) start();

import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { startHttpHost } from '../../src-main/host/http/http-host';
import type { HttpHost } from '../../src-main/host/http/http-host';
import { createCore } from '../../src-main/service/create-core';
import type { MethodInput, MethodName, MethodOutput } from '../../src-main/service/contract/methods';
import type { Core, CoreOptions } from '../../src-main/service/core-options';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from '../support/models';
import { launchBrowser } from './browser';
import type { LaunchedBrowser } from './browser';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Where screenshots of each view go (gitignored; look at them after a run). */
export const SCREENSHOT_DIR = path.join(ROOT, 'test-results', 'screenshots');

// Reported by the page itself: CSP violations do not always reach the console as errors.
const WATCH_CSP = `document.addEventListener('securitypolicyviolation', (e) =>
  console.error('CSP violation: ' + e.violatedDirective + ' blocked ' + e.blockedURI));`;

/** One app under test: the real core on the bundled model, the headless host, a browser page. */
export interface E2eApp {
  core: Core;
  host: HttpHost;
  page: Page;
  /** Console errors, page errors and CSP violations seen so far (a clean run has none). */
  problems: string[];
  /** Calls the service directly: the oracle the UI is checked against. */
  call<M extends MethodName>(method: M, input: MethodInput<M>): Promise<MethodOutput<M>>;
  screenshot(name: string): Promise<void>;
  /** Stops the headless host with the page left open; resolves with a function that starts it again on the same port. */
  stopHost(): Promise<() => Promise<void>>;
  /** Stops host and core as quitting the app does, starts both again on the same data folder and port, and reloads the page. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts core, host (free port) and chromium (fresh profile), and opens the app. `options`
 * reach the core (a fake home for discovery, a loopback hub, say); the data folder is always a fresh one, with
 * `userModels` (name → a model folder or file) copied into its models folder first.
 */
export async function startE2eApp(
  options: Pick<CoreOptions, 'discoveryEnvironment' | 'hubUrl'> & {
    userModels?: Record<string, string>;
  } = {},
): Promise<E2eApp> {
  const modelFile = path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID, 'onnx', 'model.onnx');
  if (!existsSync(modelFile))
    throw new Error(`the bundled model is missing (${modelFile}): e2e tests run the real bundled model`);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'ff-e2e-data-'));
  const { userModels, ...coreOptions } = options;
  for (const [name, folder] of Object.entries(userModels ?? {}))
    cpSync(folder, path.join(dataDir, 'models', name), { recursive: true });
  const startCore = () =>
    createCore({ ...coreOptions, dataDir, bundledModelsDir: BUNDLED_MODELS_DIR, host: 'headless' });
  let core = await startCore();
  const startHost = (port: number) =>
    startHttpHost({
      service: core.service,
      openExport: (request) => core.openExport(request),
      rendererDir: path.join(ROOT, 'out', 'renderer'),
      port,
    });
  let host = await startHost(0);
  const launched: LaunchedBrowser = await launchBrowser();
  const context = await launched.browser.newContext({
    viewport: { width: 1280, height: 900 },
    acceptDownloads: true,
  });
  const page = await context.newPage();
  const problems = watchProblems(page);
  await page.addInitScript(WATCH_CSP);
  await page.goto(host.url);
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return {
    get core() {
      return core;
    },
    get host() {
      return host;
    },
    page,
    problems,
    async call(method, input) {
      const result = await core.service.call(method, input);
      if (!result.ok) throw new Error(`${method}: ${result.error.code} ${result.error.message}`);
      return result.value;
    },
    screenshot: (name) => screenshotBothThemes(page, name),
    async stopHost() {
      const { port } = host;
      await host.close();
      return async () => {
        host = await startHost(port);
      };
    },
    async restart() {
      const { port } = host;
      await host.close();
      await core.close();
      core = await startCore();
      host = await startHost(port);
      await page.reload();
    },
    async close() {
      await launched.close();
      await host.close();
      await core.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return problems;
}

/** A full-height screenshot in the light theme and another in the dark one. */
async function screenshotBothThemes(page: Page, name: string): Promise<void> {
  const size = page.viewportSize() ?? { width: 1280, height: 900 };
  const height = await page.evaluate('Math.max(900, document.querySelector("main")?.scrollHeight + 60 || 0)');
  await page.setViewportSize({ width: size.width, height: Math.min(Number(height), 3000) });
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-${scheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(size);
}

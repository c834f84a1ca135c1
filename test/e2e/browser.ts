import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';

/** Debian's chromium, installed by apt (docs/design.md, facts of this environment). */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Headless, no sandbox or GPU, nothing fetched in the background (docs/design.md). */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
];

/** A browser on a throwaway profile, and how to close both. */
export interface LaunchedBrowser {
  browser: Browser;
  close(): Promise<void>;
}

/**
 * Launches chromium with only our flags (Playwright's own defaults are switched off), a fresh
 * --user-data-dir, and the DevTools pipe Playwright drives it through.
 */
export async function launchBrowser(): Promise<LaunchedBrowser> {
  const profileDir = mkdtempSync(path.join(tmpdir(), 'ff-e2e-profile-'));
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    ignoreDefaultArgs: true,
    args: [...CHROMIUM_FLAGS, `--user-data-dir=${profileDir}`, '--remote-debugging-pipe'],
  });
  return {
    browser,
    close: async () => {
      await browser.close();
      rmSync(profileDir, { recursive: true, force: true });
    },
  };
}

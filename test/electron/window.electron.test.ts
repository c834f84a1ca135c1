import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'electron-vite';
import { _electron } from 'playwright-core';
import type { ElectronApplication, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ENTRY_URL } from '../../src-main/host/electron/security-rules';
import { sendMessage, waitForDone } from '../e2e/chat-driver';
import { REPO_DIR, electronSkip } from './skip-reason';

// The working tree in a real Electron window, as `npm start` opens it: Chromium's sandbox on,
// the page over app://, the preload bridge, the core with its worker threads, SQLite for
// Electron through `nativeBinding`. Skipped, with the reason, where the window cannot open.

const { facts, reason } = electronSkip();
if (reason) console.log(`test:electron: the desktop window is skipped: ${reason}`);

describe.skipIf(reason !== null)(
  reason ? `the desktop window (skipped: ${reason})` : 'the desktop window',
  () => {
    let app: ElectronApplication;
    let page: Page;
    let dataDir = '';
    const logs: string[] = [];

    beforeAll(async () => {
      await build({ root: REPO_DIR, logLevel: 'warn' });
      dataDir = mkdtempSync(join(tmpdir(), 'ff-electron-'));
      app = await _electron.launch({
        // Electron is not in node_modules: the binary `npm start` downloaded into .cache/electron.
        executablePath: facts.electron.binaryPath!,
        args: [REPO_DIR],
        cwd: REPO_DIR,
        env: { ...process.env, FIRST_FRAME_DATA_DIR: dataDir },
        // What a user gets: Playwright would otherwise add --no-sandbox on Linux.
        chromiumSandbox: true,
      });
      app.process().stdout?.on('data', (data) => logs.push(String(data)));
      page = await app.firstWindow();
    });

    afterAll(async () => {
      await app?.close();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    it('loads our page over app:// with the preload bridge and no Node in the page', async () => {
      await page.getByTestId('chat-input').waitFor();
      expect(page.url()).toBe(APP_ENTRY_URL);
      expect(
        await page.evaluate(
          () => typeof (globalThis as { firstFrame?: { methods?: object } }).firstFrame?.methods,
        ),
      ).toBe('object');
      expect(await page.evaluate(() => typeof (globalThis as { require?: unknown }).require)).toBe(
        'undefined',
      );
    });

    it('answers a chat message with its TTFT bar, with history kept when SQLite for Electron is built', async () => {
      const answer = await sendMessage(page, 'Good morning, Miss Bennet.');
      await waitForDone(answer);
      await answer.getByTestId('ttft-bar').waitFor();
      const notKept = await page.getByText('History is not being kept').count();
      expect(notKept).toBe(facts.sqlite.isElectronBuildPresent ? 0 : 1);
    });

    it('shows the model resident in Slots (its worker thread runs)', async () => {
      await page.getByTestId('nav-slots').click();
      await page
        .locator(
          '[data-testid="slot-card"][data-status="resident"], [data-testid="slot-card"][data-status="active"]',
        )
        .first()
        .waitFor();
      expect(logs.join('')).toMatch(/\[first-frame\] history: on|\[first-frame\] history: OFF/);
    });
  },
);

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unpackedResourcesDir } from '../../tools/setup/dist-layout.mjs';
import { REPO_DIR, electronSkip } from './skip-reason';

// The unpacked app `npm run dist` made (release/<version>/linux-unpacked): its fuses as
// flipped, and one start on a fresh data folder, read from its log lines: the ESM main bundle
// loads from app.asar, SQLite for Electron from resources, the slot's worker thread from app.asar.
// Playwright cannot drive it (the inspect fuse is off), so the log is the witness.

const require = createRequire(import.meta.url);
const version = JSON.parse(readFileSync(join(REPO_DIR, 'package.json'), 'utf8')).version as string;
const outputDir = join(REPO_DIR, 'release', version);
const resourcesDir = unpackedResourcesDir(outputDir);
const executable = resourcesDir
  ? join(resourcesDir, '..', process.platform === 'win32' ? 'first-frame.exe' : 'first-frame')
  : '';
const { reason: windowReason } = electronSkip();
const reason = !existsSync(executable)
  ? `no unpacked package at ${outputDir} (\`npm run dist\` makes one)`
  : windowReason;
if (reason) console.log(`test:electron: the packaged app is skipped: ${reason}`);

/** Starts the packaged app until `lines` have all appeared in its output (or it exits). */
function startUntil(lines: RegExp[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(executable, [], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const check = (data: Buffer) => {
      output += String(data);
      if (lines.every((line) => line.test(output))) child.kill('SIGTERM');
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    child.on('exit', () => resolve(output));
  });
}

describe.skipIf(reason !== null)(
  reason ? `the packaged app (skipped: ${reason})` : 'the packaged app',
  () => {
    it('has its fuses flipped: no run-as-node, cookies encrypted, asar integrity, app only from the asar', async () => {
      const { getCurrentFuseWire, FuseV1Options, FuseState } = require('@electron/fuses');
      const wire = await getCurrentFuseWire(executable);
      expect(wire[FuseV1Options.RunAsNode]).toBe(FuseState.DISABLE);
      expect(wire[FuseV1Options.EnableCookieEncryption]).toBe(FuseState.ENABLE);
      expect(wire[FuseV1Options.EnableEmbeddedAsarIntegrityValidation]).toBe(FuseState.ENABLE);
      expect(wire[FuseV1Options.OnlyLoadAppFromAsar]).toBe(FuseState.ENABLE);
    });

    it('starts from app.asar with SQLite for Electron and the slot worker, keeping data in the data folder', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'ff-packaged-'));
      try {
        const output = await startUntil([/history: (on|OFF)/, /is resident|could not prefetch/], {
          ...process.env,
          FIRST_FRAME_DATA_DIR: dataDir,
        });
        expect(output).toContain(
          `SQLite for Electron: ${join(resourcesDir!, 'electron-native', 'better_sqlite3.node')}`,
        );
        expect(output).toContain('history: on (SQLite)');
        expect(output).toMatch(/model \S+ is resident/);
        expect(existsSync(join(dataDir, 'history.sqlite'))).toBe(true);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  },
);

import { describe, expect, it } from 'vitest';
import { honoursAllowScripts, installNotes, parseNpmVersion } from '../../../../tools/setup/install-plan.mjs';
import type { InstallFacts } from '../../../../tools/setup/install-plan.mjs';

const NPM_10 = 'npm/10.9.9 node/v20.20.2 linux x64 workspaces/false';
const NPM_11 = 'npm/11.19.1 node/v20.20.2 linux x64 workspaces/false';

const linuxFacts = (overrides: Partial<InstallFacts>): InstallFacts => ({
  npmVersion: parseNpmVersion(NPM_11),
  electronVersion: '40.9.3',
  isElectronBinaryPresent: false,
  isElectronDownloadSkipped: false,
  hasCudaManifest: true,
  hasCudaFiles: false,
  ...overrides,
});

describe('which npm honours allowScripts', () => {
  it("reads npm's version from the user agent it gives scripts", () => {
    expect(parseNpmVersion(NPM_10)).toEqual([10, 9, 9]);
    expect(parseNpmVersion(NPM_11)).toEqual([11, 19, 1]);
    expect(parseNpmVersion('yarn/1.22.22 npm/? node/v20.20.2')).toBeNull();
    expect(parseNpmVersion(undefined)).toBeNull();
  });

  it('is npm 11.16 and later (npm 10 and early 11 ignore the field)', () => {
    expect(honoursAllowScripts([10, 9, 9])).toBe(false);
    expect(honoursAllowScripts([11, 15, 9])).toBe(false);
    expect(honoursAllowScripts([11, 16, 0])).toBe(true);
    expect(honoursAllowScripts([11, 19, 1])).toBe(true);
    expect(honoursAllowScripts([12, 0, 0])).toBe(true);
    expect(honoursAllowScripts(null)).toBe(false);
  });
});

describe('what the install says it did not download', () => {
  it('npm 11: Electron left to npm start, the CUDA files to gpu:install', () => {
    expect(installNotes(linuxFacts({}))).toEqual([
      "Electron 40.9.3 (the desktop window): not downloaded (package.json's allowScripts keeps downloads out " +
        'of the install); `npm start` downloads it (about 110 MB) the first time a display is available.',
      "ONNX Runtime's GPU (CUDA 12) files: not downloaded (.npmrc skips them); `npm run gpu:install` adds them.",
    ]);
  });

  it('npm 10 online: Electron was downloaded by its own script; CUDA still skipped', () => {
    const notes = installNotes(
      linuxFacts({ npmVersion: parseNpmVersion(NPM_10), isElectronBinaryPresent: true }),
    );
    expect(notes[0]).toBe('Electron 40.9.3: installed; `npm start` opens the desktop window.');
    expect(notes[1]).toContain('gpu:install');
  });

  it('names ELECTRON_SKIP_BINARY_DOWNLOAD when that is why (npm 10 with the variable, CI)', () => {
    const notes = installNotes(
      linuxFacts({ npmVersion: parseNpmVersion(NPM_10), isElectronDownloadSkipped: true }),
    );
    expect(notes[0]).toContain('not downloaded (ELECTRON_SKIP_BINARY_DOWNLOAD is set)');
  });

  it('says nothing about GPU files where onnxruntime-node has none, or they are there', () => {
    expect(installNotes(linuxFacts({ hasCudaManifest: false }))).toHaveLength(1);
    expect(installNotes(linuxFacts({ hasCudaFiles: true }))).toHaveLength(1);
  });
});

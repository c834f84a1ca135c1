import { describe, expect, it } from 'vitest';
import { installNotes, installPlanLine } from '../../../../tools/setup/install-plan.mjs';
import type { InstallFacts } from '../../../../tools/setup/install-plan.mjs';

/** A fresh `npm ci` on Linux x64 (any npm: none of them installs Electron's binary). */
const linuxFacts = (overrides: Partial<InstallFacts>): InstallFacts => ({
  electronVersion: '40.9.3',
  electronPackage: { kind: 'ok', detail: 'installed in 6.2 s' },
  isElectronBinaryPresent: false,
  hasCudaManifest: true,
  hasCudaFiles: false,
  ...overrides,
});

describe('what the install says it did and did not download', () => {
  it("a fresh install: Electron's package in .cache/electron, its binary left to npm start, the CUDA files to gpu:install", () => {
    expect(installNotes(linuxFacts({}))).toEqual([
      "Electron 40.9.3's npm package (types and installer, no binary): installed in 6.2 s, in .cache/electron.",
      'Electron 40.9.3 (the desktop window): not downloaded (the install never downloads it); `npm start` ' +
        'downloads it (about 110 MB) the first time a display is available, `npm run electron:fetch` now.',
      "ONNX Runtime's GPU (CUDA 12) files: not downloaded (.npmrc skips them); `npm run gpu:install` adds them.",
    ]);
  });

  it('a reinstall where an earlier start downloaded the binary: the package is kept, the window is ready', () => {
    const notes = installNotes(linuxFacts({ electronPackage: null, isElectronBinaryPresent: true }));
    expect(notes[0]).toBe(
      'Electron 40.9.3: installed in .cache/electron; `npm start` opens the desktop window.',
    );
    expect(notes).toHaveLength(2);
  });

  it("says why Electron's package could not be installed and which command installs it, without failing", () => {
    const notes = installNotes(
      linuxFacts({ electronPackage: { kind: 'offline', detail: 'registry.npmjs.org could not be reached' } }),
    );
    expect(notes[0]).toBe(
      "Electron 40.9.3's npm package (types and installer) could not be installed in .cache/electron " +
        '(registry.npmjs.org could not be reached); `npm run electron:fetch` installs it (`npm run typecheck` needs it).',
    );
    expect(notes[1]).toContain('not downloaded (the install never downloads it)');
  });

  it('says nothing about GPU files where onnxruntime-node has none, or they are there', () => {
    expect(installNotes(linuxFacts({ hasCudaManifest: false }))).toHaveLength(2);
    expect(installNotes(linuxFacts({ hasCudaFiles: true }))).toHaveLength(2);
  });
});

describe("the install's first line", () => {
  it('says at once what a fresh install builds and roughly how long', () => {
    expect(
      installPlanLine({ isSqliteReady: false, isAddonBuilt: true, isElectronPackagePresent: false }),
    ).toBe(
      'setting up SQLite for this machine (a prebuilt download, else a 1–2 minute compile), the host-memory ' +
        "addon (about half a minute), Electron's npm package (seconds): usually 1–3 minutes, a line every 15 s " +
        'while a step runs.',
    );
  });

  it('promises less when SQLite is built already, and says so when nothing is left to build', () => {
    expect(
      installPlanLine({ isSqliteReady: true, isAddonBuilt: true, isElectronPackagePresent: true }),
    ).toMatch(/^setting up the host-memory addon \(about half a minute\): under a minute/);
    expect(
      installPlanLine({ isSqliteReady: true, isAddonBuilt: false, isElectronPackagePresent: true }),
    ).toBe('setting up: everything is already built; checking takes seconds.');
  });
});

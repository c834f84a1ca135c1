import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  FORBIDDEN_IN_ASAR,
  RESOURCE_FILES,
  bundleEntries,
  layoutProblems,
  productionPackageFiles,
} from '../../../../tools/setup/package-layout.mjs';
import type { LayoutInput } from '../../../../tools/setup/package-layout.mjs';

const complete = (): LayoutInput => ({
  asarFiles: [
    'package.json',
    'out/main/index.js',
    'out/main/slot-worker.js',
    'node_modules/zod/package.json',
  ],
  unpackedFiles: ['node_modules/onnxruntime-node/bin/napi-v6/linux/x64/onnxruntime_binding.node'],
  resourceFiles: [...RESOURCE_FILES],
  bundleEntries: ['package.json', 'out/main/index.js', 'out/main/slot-worker.js'],
  packageFiles: ['node_modules/zod/package.json'],
  nativeFiles: ['node_modules/onnxruntime-node/bin/napi-v6/linux/x64/onnxruntime_binding.node'],
});

describe('the packaged layout check', () => {
  it('passes a package that has everything', () => {
    expect(layoutProblems(complete())).toEqual([]);
  });

  it('names a worker entry missing from app.asar', () => {
    const layout = complete();
    layout.asarFiles = layout.asarFiles.filter((file) => file !== 'out/main/slot-worker.js');
    expect(layoutProblems(layout)).toEqual(['app.asar lacks out/main/slot-worker.js']);
  });

  it('names a production dependency electron-builder left out', () => {
    const layout = complete();
    layout.asarFiles = layout.asarFiles.filter((file) => !file.startsWith('node_modules/zod'));
    expect(layoutProblems(layout)).toEqual(['app.asar lacks the dependency node_modules/zod']);
  });

  it('wants native code unpacked beside the asar, SQLite for Electron in resources, and no Node SQLite build', () => {
    const layout = complete();
    layout.unpackedFiles = [FORBIDDEN_IN_ASAR[0]!];
    layout.resourceFiles = ['models/ff-austen-mini/config.json'];
    expect(layoutProblems(layout)).toEqual([
      'node_modules/onnxruntime-node/bin/napi-v6/linux/x64/onnxruntime_binding.node is not unpacked beside app.asar (native code cannot load from it)',
      'resources/electron-native/better_sqlite3.node is missing',
      `${FORBIDDEN_IN_ASAR[0]} (Node's build) is packed`,
    ]);
  });
});

describe('what a package must contain, read from the checkout', () => {
  let repo = '';
  afterEach(() => rmSync(repo, { recursive: true, force: true }));

  /** Writes node_modules/<path>/package.json with the given dependencies. */
  const pkg = (
    path: string,
    dependencies: Record<string, string> = {},
    optional: Record<string, string> = {},
  ) => {
    mkdirSync(join(repo, path), { recursive: true });
    const name = path.split('node_modules/').at(-1);
    writeFileSync(
      join(repo, path, 'package.json'),
      JSON.stringify({ name, dependencies, optionalDependencies: optional }),
    );
  };

  it('follows dependencies as Node resolves them (nested copies first), optional ones only when present', () => {
    repo = mkdtempSync(join(tmpdir(), 'ff-layout-'));
    writeFileSync(
      join(repo, 'package.json'),
      JSON.stringify({ dependencies: { a: '1' }, devDependencies: { dev: '1' } }),
    );
    pkg('node_modules/a', { b: '1', c: '2' }, { gone: '1' });
    pkg('node_modules/b');
    pkg('node_modules/c');
    pkg('node_modules/a/node_modules/c');
    pkg('node_modules/dev');
    expect(productionPackageFiles(repo)).toEqual([
      'node_modules/a/node_modules/c/package.json',
      'node_modules/a/package.json',
      'node_modules/b/package.json',
    ]);
  });

  it('refuses a checkout missing a required dependency', () => {
    repo = mkdtempSync(join(tmpdir(), 'ff-layout-'));
    writeFileSync(join(repo, 'package.json'), JSON.stringify({ dependencies: { a: '1' } }));
    expect(() => productionPackageFiles(repo)).toThrow('a (needed by the app) is not installed');
  });

  it('takes every top-level file electron-vite wrote to out/main as an entry (the main and each worker)', () => {
    repo = mkdtempSync(join(tmpdir(), 'ff-layout-'));
    mkdirSync(join(repo, 'out', 'main', 'chunks'), { recursive: true });
    for (const name of ['index.js', 'slot-worker.js', 'chunks/shared.js'])
      writeFileSync(join(repo, 'out', 'main', name), '');
    expect(bundleEntries(repo)).toEqual([
      'out/main/index.js',
      'out/main/slot-worker.js',
      'out/preload/index.cjs',
      'out/renderer/index.html',
      'package.json',
    ]);
  });
});

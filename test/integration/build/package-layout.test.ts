import { existsSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'electron-vite';
import { beforeAll, describe, expect, it } from 'vitest';
import config from '../../../electron-builder.js';
import { buildStandInLayout, checkUnpackedPackage } from '../../../tools/setup/dist-layout.mjs';
import { declaredElectronVersion } from '../../../tools/setup/electron-release.mjs';
import type { LayoutInput } from '../../../tools/setup/package-layout.mjs';
import { electronSqliteDir } from '../../../tools/setup/sqlite-builds.mjs';

// electron-builder's own `--dir` build with a stand-in for the Electron binary (which this
// machine cannot download), then app.asar listed and checked: the main entry and every worker
// entry, every production dependency, the add-ons unpacked, the models in resources, and no
// Node build of SQLite. The one part a stand-in cannot have is SQLite for Electron (it needs the
// network once); it is reported missing unless `npm run electron:fetch` has built it.

const REPO_DIR = fileURLToPath(new URL('../../..', import.meta.url));
// electron-builder asks `npm ls` for the production tree; with node_modules linked in from
// elsewhere (a worktree sharing one install) npm reports it extraneous and packs too little.
const reason = lstatSync(join(REPO_DIR, 'node_modules')).isSymbolicLink()
  ? "node_modules is a symlink, which electron-builder's npm collector cannot list (run in a clone with its own install)"
  : null;

describe.skipIf(reason !== null)(
  reason ? `the packaged layout (skipped: ${reason})` : 'the packaged layout',
  () => {
    let layout: LayoutInput;
    let problems: string[];

    beforeAll(async () => {
      await build({ root: REPO_DIR, logLevel: 'warn' });
      // electron-builder hard-links files instead of copying them when VITEST is set (its own
      // tests' mode); its concurrent linker then fails with EEXIST on the models folder here.
      const vitest = process.env.VITEST;
      delete process.env.VITEST;
      try {
        ({ layout, problems } = checkUnpackedPackage(REPO_DIR, await buildStandInLayout(REPO_DIR, config)));
      } finally {
        process.env.VITEST = vitest;
      }
    }, 240_000);

    it('has the ESM main entry, every worker entry, the preload and the page inside app.asar', () => {
      for (const entry of [
        'package.json',
        'out/main/index.js',
        'out/main/slot-worker.js',
        'out/main/tokenizer-worker.js',
        'out/main/template-worker.js',
        'out/main/gguf-convert-worker.js',
        'out/main/listing-worker.js',
        'out/main/trace-import-worker.js',
        'out/preload/index.cjs',
        'out/renderer/index.html',
      ])
        expect(layout.asarFiles).toContain(entry);
    });

    it('is complete except, without the network, SQLite for Electron', () => {
      const version = declaredElectronVersion(REPO_DIR);
      const sqliteDir = electronSqliteDir(REPO_DIR, version, process.platform, process.arch);
      const isSqliteBuilt = existsSync(join(sqliteDir, 'better_sqlite3.node'));
      expect(problems).toEqual(
        isSqliteBuilt ? [] : ['resources/electron-native/better_sqlite3.node is missing'],
      );
    });
  },
);

import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import config, { ELECTRON_SQLITE_FROM } from '../../../electron-builder.js';
import viteConfig from '../../../electron.vite.config';
import { resolveAppPaths } from '../../../src-main/host/electron/app-paths';
import { classifyNativeModule, findNativeFiles, loadsInAbi } from '../../../tools/native-abi.mjs';
import { declaredElectronVersion, electronPackageDir } from '../../../tools/setup/electron-release.mjs';
import { electronBuildEnv } from '../../../tools/setup/node-gyp.mjs';
import { electronSqliteDir } from '../../../tools/setup/sqlite-builds.mjs';

const REPO_DIR = fileURLToPath(new URL('../../..', import.meta.url));
const require = createRequire(import.meta.url);

/** electron-builder's own check, the call it makes before every build (its JSON schema). */
async function validate(configuration: object): Promise<void> {
  const { validateConfiguration } = require('app-builder-lib/out/util/config/config');
  const { DebugLogger } = require('builder-util');
  await validateConfiguration(configuration, new DebugLogger(false));
}

/** A PNG's width and height from its IHDR chunk. */
function pngSize(path: string): [number, number] {
  const bytes = readFileSync(path);
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
}

describe('electron-builder config', () => {
  it("matches electron-builder's own schema, which rejects a wrong value", async () => {
    await expect(validate(config)).resolves.toBeUndefined();
    await expect(
      validate({ ...config, electronFuses: { ...config.electronFuses, runAsNode: 'no' } }),
    ).rejects.toThrow(/electronFuses.runAsNode should be a boolean/);
  });

  it("packs package.json's Electron from the on-demand install, with no electron package in node_modules", () => {
    expect(config.electronVersion).toBe(declaredElectronVersion(REPO_DIR));
    expect(config.electronDist).toBe(join(electronPackageDir(REPO_DIR), 'dist'));
  });

  it('targets AppImage and deb on Linux, and macOS and Windows installers', () => {
    expect(config.linux?.target).toEqual(['AppImage', 'deb']);
    expect(config.mac?.target).toEqual(['dmg', 'zip']);
    expect(config.win?.target).toEqual(['nsis']);
  });

  it('flips the fuses: no run-as-node, cookies encrypted, asar integrity checked, app only from the asar', () => {
    expect(config.electronFuses).toEqual({
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
    });
    expect(config.asar).toBe(true);
  });

  it('never rebuilds node_modules, and ships SQLite for Electron where the packaged main loads it', () => {
    expect(config.npmRebuild).toBe(false);
    expect(config.files).toContain('!node_modules/better-sqlite3/{deps,src,build}/**');
    const sqlite = (config.extraResources as { from: string; to: string; filter: string[] }[]).find(
      (resource) => resource.from === ELECTRON_SQLITE_FROM,
    );
    expect(sqlite).toEqual({
      from: ELECTRON_SQLITE_FROM,
      to: 'electron-native',
      filter: ['better_sqlite3.node'],
    });
    // electron-builder expands ${platform} and ${arch}; the tool writes the same folder.
    const version = declaredElectronVersion(REPO_DIR);
    const expanded = ELECTRON_SQLITE_FROM.replace('${platform}', 'linux').replace('${arch}', 'x64');
    expect(join(REPO_DIR, expanded)).toBe(electronSqliteDir(REPO_DIR, version, 'linux', 'x64'));
    const packaged = resolveAppPaths({
      userDataDir: '/u',
      isPackaged: true,
      resourcesPath: '/opt/ff/resources',
      appPath: '/opt/ff/resources/app.asar',
      mainBundleDir: '/opt/ff/resources/app.asar/out/main',
      electronVersion: version,
      platform: 'linux',
      arch: 'x64',
    });
    expect(packaged.sqliteBindingPath).toBe(join('/opt/ff/resources', sqlite!.to, 'better_sqlite3.node'));
  });

  it('packs the bundles, the addon and the models; native code stays outside the asar', () => {
    expect(config.files).toEqual(
      expect.arrayContaining(['out/**', 'native/build/Release/ff_host_memory.node']),
    );
    expect(config.extraResources).toContainEqual({
      from: 'resources/models',
      to: 'models',
      filter: ['**/*'],
    });
    expect(config.asarUnpack).toEqual(
      expect.arrayContaining([
        '**/*.node',
        'node_modules/onnxruntime-node/bin/**',
        'native/build/Release/**',
      ]),
    );
  });

  it('has an icon: a Linux set named by size, and a 1024 px PNG for macOS and Windows', () => {
    const dir = join(REPO_DIR, config.linux!.icon as string);
    const sizes = readdirSync(dir).filter((name) => /^\d+x\d+\.png$/.test(name));
    expect(sizes).toEqual(expect.arrayContaining(['16x16.png', '256x256.png', '512x512.png']));
    for (const name of sizes) {
      const side = Number(name.split('x')[0]);
      expect(pngSize(join(dir, name))).toEqual([side, side]);
    }
    expect(pngSize(join(REPO_DIR, config.mac!.icon as string))).toEqual([1024, 1024]);
    expect(config.win!.icon).toBe(config.mac!.icon);
  });

  it('builds every worker the runtime spawns as an entry beside the main bundle (found there inside app.asar)', () => {
    const input = (viteConfig as { main: { build: { rollupOptions: { input: Record<string, string> } } } })
      .main.build.rollupOptions.input;
    const sources = findSources(join(REPO_DIR, 'src-main')).map((file) => readFileSync(file, 'utf8'));
    const spawned = new Set<string>();
    for (const text of sources) {
      for (const match of text.matchAll(/spawnWorker\('([\w-]+)'/g)) spawned.add(match[1]!);
      for (const match of text.matchAll(/new URL\('\.\/([\w-]+-worker)\.js', import\.meta\.url\)/g))
        spawned.add(match[1]!);
    }
    expect([...spawned].sort()).toEqual([
      'gguf-convert-worker',
      'listing-worker',
      'slot-worker',
      'template-worker',
      'tokenizer-worker',
      'trace-import-worker',
    ]);
    for (const name of spawned) expect(Object.keys(input)).toContain(name);
    expect(Object.keys(input)).toContain('index');
    expect(existsSync(join(REPO_DIR, 'resources', 'models'))).toBe(true);
  });
});

/** Every .ts file under `dir`. */
function findSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return findSources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('native modules under Electron', () => {
  const latin1 = (text: string) => Buffer.from(text, 'latin1');

  it('tells Node-API modules from ABI-bound ones by their registration symbol', () => {
    expect(classifyNativeModule(latin1('..napi_register_module_v1..'))).toEqual({
      kind: 'node-api',
      usesV8: false,
    });
    expect(classifyNativeModule(latin1('..node_register_module_v115.._ZN2v87Isolate'))).toEqual({
      kind: 'abi',
      abi: 115,
      usesV8: true,
    });
    expect(classifyNativeModule(latin1('sqlite3_extension_init'))).toEqual({
      kind: 'unknown',
      usesV8: false,
    });
    expect(loadsInAbi({ kind: 'node-api', usesV8: false }, 143)).toBe(true);
    expect(loadsInAbi({ kind: 'abi', abi: 115, usesV8: true }, 143)).toBe(false);
  });

  it('finds onnxruntime-node and our addon to be Node-API (no rebuild), better-sqlite3 bound to this ABI', () => {
    const check = (root: string) =>
      (findNativeFiles(join(REPO_DIR, root)) as string[]).map((file) =>
        classifyNativeModule(readFileSync(file)),
      );
    const ort = check('node_modules/onnxruntime-node/bin');
    expect(ort.length).toBeGreaterThan(0);
    expect(
      ort.every((found: { kind: string; usesV8: boolean }) => found.kind === 'node-api' && !found.usesV8),
    ).toBe(true);
    const addon = check('native/build/Release');
    expect(addon.every((found: { kind: string }) => found.kind === 'node-api')).toBe(true);
    const sqlite = check('node_modules/better-sqlite3/build/Release').filter(
      (found: { kind: string }) => found.kind !== 'unknown',
    );
    expect(sqlite).toEqual([{ kind: 'abi', abi: Number(process.versions.modules), usesV8: true }]);
  });

  it("drops npm's nodedir and target from an Electron build's environment (they would build for Node's ABI)", () => {
    const env = electronBuildEnv({
      PATH: '/bin',
      npm_config_nodedir: '/usr',
      NPM_CONFIG_TARGET: '20.0.0',
      npm_config_loglevel: 'error',
      npm_config_cache: '/c',
    });
    expect(env).toEqual({ PATH: '/bin', npm_config_cache: '/c' });
  });
});

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM config file without type declarations
import config from '../../../electron-builder.js';
// @ts-expect-error -- a plain .mjs tool without type declarations
import { classifyNativeModule, findNativeFiles, loadsInAbi } from '../../../tools/native-abi.mjs';
// @ts-expect-error -- a plain .mjs tool without type declarations
import { buildEnv, parseArgs } from '../../../tools/rebuild-native.mjs';

const REPO_DIR = fileURLToPath(new URL('../../..', import.meta.url));

interface BuilderConfig {
  files: string[];
  asar: boolean;
  asarUnpack: string[];
  extraResources: { from: string; to: string }[];
  electronFuses: Record<string, boolean>;
  linux: { target: string[] };
  mac: { target: string[] };
  win: { target: string[] };
}
const builder = config as BuilderConfig;

describe('electron-builder config', () => {
  it('targets AppImage and deb on Linux, and macOS and Windows installers', () => {
    expect(builder.linux.target).toEqual(['AppImage', 'deb']);
    expect(builder.mac.target.length).toBeGreaterThan(0);
    expect(builder.win.target).toContain('nsis');
  });

  it('packs the three bundles and the addon; bundled models go to resources/models', () => {
    expect(builder.files).toContain('out/**');
    expect(builder.files).toContain('native/build/Release/ff_host_memory.node');
    expect(builder.extraResources).toContainEqual(
      expect.objectContaining({ from: 'resources/models', to: 'models' }),
    );
    expect(existsSync(join(REPO_DIR, 'resources', 'models'))).toBe(true);
  });

  it('keeps native code outside the asar, where it can be loaded', () => {
    expect(builder.asar).toBe(true);
    expect(builder.asarUnpack).toEqual(
      expect.arrayContaining([
        '**/*.node',
        'node_modules/onnxruntime-node/bin/**',
        'native/build/Release/**',
      ]),
    );
  });

  it('flips the hardening fuses', () => {
    expect(builder.electronFuses).toMatchObject({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
    });
  });
});

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

  it("drops npm's nodedir from the rebuild's environment (it would build for Node's ABI)", () => {
    const env = buildEnv({
      PATH: '/bin',
      npm_config_nodedir: '/usr',
      NPM_CONFIG_TARGET: '20.0.0',
      npm_config_cache: '/c',
    });
    expect(env).toEqual({ PATH: '/bin', npm_config_cache: '/c' });
  });

  it('parses the rebuild options and refuses unknown ones', () => {
    expect(parseArgs(['--in-place', '--electron', '40.9.3', '--arch', 'arm64'])).toMatchObject({
      isInPlace: true,
      electronVersion: '40.9.3',
      arch: 'arm64',
    });
    expect(() => parseArgs(['--force'])).toThrow(/unknown option/);
  });
});

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  declaredElectronVersion,
  electronPackageDir,
  electronViteEnv,
  readElectronPackage,
} from '../../../../tools/setup/electron-release.mjs';

const REPO_DIR = fileURLToPath(new URL('../../../..', import.meta.url));
const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'];
const dirs: string[] = [];

/** A repository folder declaring `declared`, with .cache/electron holding `installed` (or nothing). */
function fakeRepo(declared: unknown, installed?: { version: string; hasBinary: boolean }): string {
  const dir = mkdtempSync(join(tmpdir(), 'ff-electron-release-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'x', electronVersion: declared }));
  if (installed) {
    const packageDir = electronPackageDir(dir);
    mkdirSync(join(packageDir, 'dist'), { recursive: true });
    writeFileSync(
      join(packageDir, 'package.json'),
      JSON.stringify({ name: 'electron', version: installed.version }),
    );
    writeFileSync(join(packageDir, 'abi_version'), '143\n');
    if (installed.hasBinary) {
      writeFileSync(join(packageDir, 'path.txt'), 'electron');
      writeFileSync(join(packageDir, 'dist', 'electron'), '');
    }
  }
  return dir;
}

afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('Electron: declared once, installed outside the dependencies', () => {
  it('is in no dependency field and not in the lock, so no npm (10 or 11) runs its installer during npm ci', () => {
    const manifest = JSON.parse(readFileSync(join(REPO_DIR, 'package.json'), 'utf8'));
    for (const field of DEPENDENCY_FIELDS) expect(manifest[field]?.electron, field).toBeUndefined();
    const lock = JSON.parse(readFileSync(join(REPO_DIR, 'package-lock.json'), 'utf8'));
    expect(Object.keys(lock.packages).filter((path) => /(^|\/)node_modules\/electron$/.test(path))).toEqual(
      [],
    );
    expect(declaredElectronVersion(REPO_DIR)).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("points the TypeScript check's electron types at the on-demand install", () => {
    const tsconfig = readFileSync(join(REPO_DIR, 'tsconfig.node.json'), 'utf8');
    const paths = /"paths":\s*(\{[^}]*\})/.exec(tsconfig)?.[1];
    expect(JSON.parse(paths ?? '{}')).toEqual({
      electron: [`./${relative(REPO_DIR, electronPackageDir(REPO_DIR)).split('\\').join('/')}`],
    });
  });

  it('refuses a declaration that is not one exact version', () => {
    expect(declaredElectronVersion(fakeRepo('40.9.3'))).toBe('40.9.3');
    expect(() => declaredElectronVersion(fakeRepo('^40.9.3'))).toThrow(/exact version.*\^40\.9\.3/);
    expect(() => declaredElectronVersion(fakeRepo(undefined))).toThrow(/electronVersion/);
  });

  it('reads nothing installed, the package without its binary, then the binary', () => {
    const absent = readElectronPackage(fakeRepo('40.9.3'));
    expect(absent).toMatchObject({
      version: '40.9.3',
      isPackageInstalled: false,
      abi: null,
      binaryPath: null,
    });
    const packageOnly = readElectronPackage(fakeRepo('40.9.3', { version: '40.9.3', hasBinary: false }));
    expect(packageOnly).toMatchObject({ isPackageInstalled: true, abi: 143, binaryPath: null });
    const repo = fakeRepo('40.9.3', { version: '40.9.3', hasBinary: true });
    expect(readElectronPackage(repo).binaryPath).toBe(join(electronPackageDir(repo), 'dist', 'electron'));
  });

  it('counts a package of another version as not installed (the declaration moved on)', () => {
    const stale = readElectronPackage(fakeRepo('41.0.0', { version: '40.9.3', hasBinary: true }));
    expect(stale).toMatchObject({ version: '41.0.0', isPackageInstalled: false, binaryPath: null });
  });

  it('gives electron-vite the declared major version, and the executable once it is there', () => {
    expect(electronViteEnv(fakeRepo('40.9.3'))).toEqual({ ELECTRON_MAJOR_VER: '40' });
    const repo = fakeRepo('40.9.3', { version: '40.9.3', hasBinary: true });
    expect(electronViteEnv(repo)).toEqual({
      ELECTRON_MAJOR_VER: '40',
      ELECTRON_EXEC_PATH: join(electronPackageDir(repo), 'dist', 'electron'),
    });
  });
});

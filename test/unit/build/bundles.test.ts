import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script, createContext, runInContext } from 'node:vm';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildContentSecurityPolicy } from '../../../src-main/host/electron/csp';
import { methodsArgument } from '../../../src-main/host/electron/ipc-channels';
import { METHOD_NAMES } from '../../../src-main/service/contract/methods';
import { parseCsp } from '../host/electron/parse-csp';

// Builds the three bundles with the repository's electron.vite.config.ts (outDirs moved under
// .cache so a running dev build is untouched) and checks what Electron will load. No Electron
// package or binary is needed: the config hands electron-vite package.json's electronVersion.

const REPO_DIR = fileURLToPath(new URL('../../..', import.meta.url));
const WORK_DIR = join(REPO_DIR, '.cache', 'build-test');
const OUT_DIR = join(WORK_DIR, 'out');
const read = (...parts: string[]) => readFileSync(join(OUT_DIR, ...parts), 'utf8');

const TEST_CONFIG = `import base from '../../electron.vite.config';
const at = (section, dir) => ({ ...section, build: { ...section.build, outDir: ${JSON.stringify(OUT_DIR)} + '/' + dir } });
export default { ...base, main: at(base.main, 'main'), preload: at(base.preload, 'preload'), renderer: at(base.renderer, 'renderer') };
`;

beforeAll(() => {
  rmSync(WORK_DIR, { recursive: true, force: true });
  mkdirSync(WORK_DIR, { recursive: true });
  const configFile = join(WORK_DIR, 'electron.vite.config.ts');
  writeFileSync(configFile, TEST_CONFIG);
  const cli = join(REPO_DIR, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js');
  const run = spawnSync(process.execPath, [cli, 'build', '-c', configFile], {
    cwd: REPO_DIR,
    encoding: 'utf8',
    timeout: 170_000,
  });
  if (run.status !== 0) throw new Error(`electron-vite build failed:\n${run.stdout}\n${run.stderr}`);
}, 180_000);

describe('electron-vite build', () => {
  it('emits the three bundles (main with its worker threads, preload, renderer)', () => {
    for (const file of [
      'main/index.js',
      'main/slot-worker.js',
      'main/trace-import-worker.js',
      'main/tokenizer-worker.js',
      'main/template-worker.js',
      'main/gguf-convert-worker.js',
      'main/listing-worker.js',
      'preload/index.cjs',
      'renderer/index.html',
    ]) {
      expect(existsSync(join(OUT_DIR, file)), file).toBe(true);
    }
  });

  it('emits the preload as one self-contained CommonJS script needing only electron', () => {
    const code = read('preload', 'index.cjs');
    expect(() => new Script(code)).not.toThrow(); // import/export statements would not parse
    expect(code).not.toMatch(/^\s*(import|export)\s/m);
    const required = [...code.matchAll(/require\(\s*["']([^"']+)["']\s*\)/g)].map((match) => match[1]);
    expect(required).toEqual(['electron']);
    expect(code).not.toMatch(/ZodError|safeParse|\$ZodType/); // no zod bundled in
  });

  it('runs the preload as a sandbox would and exposes the agreed API', () => {
    const exposed = new Map<string, { methods: Record<string, unknown>; platform: string }>();
    const electron = {
      contextBridge: { exposeInMainWorld: (key: string, api: never) => exposed.set(key, api) },
      ipcRenderer: { invoke: () => Promise.resolve(null), on: () => {}, removeListener: () => {} },
    };
    const sandboxRequire = (name: string) => {
      if (name === 'electron') return electron;
      throw new Error(`module not found: ${name}`);
    };
    const module = { exports: {} };
    const context = createContext({
      require: sandboxRequire,
      module,
      exports: module.exports,
      process: { platform: 'linux', argv: ['/electron', '--type=renderer', methodsArgument(METHOD_NAMES)] },
    });
    runInContext(read('preload', 'index.cjs'), context);
    expect([...exposed.keys()]).toEqual(['firstFrame']);
    const api = exposed.get('firstFrame')!;
    expect(Object.keys(api).sort()).toEqual(['methods', 'onEvents', 'platform']);
    expect(Object.keys(api.methods).sort()).toEqual([...METHOD_NAMES].sort());
    expect(api.platform).toBe('linux');
  });

  it('builds main as an ES module that sets the CSP header itself', () => {
    const main = read('main', 'index.js');
    expect(main).toMatch(/from\s+["']electron["']/);
    expect(main).toContain("'none'");
    expect(main).toContain('frame-ancestors');
    expect(main).toContain('Content-Security-Policy');
  });

  it("ships a renderer page with a CSP from default-src 'none' that the header does not tighten", () => {
    const html = read('renderer', 'index.html');
    const meta = /<meta[^>]+http-equiv="Content-Security-Policy"[^>]+content="([^"]+)"/i.exec(html);
    expect(meta, 'CSP meta tag in out/renderer/index.html').not.toBeNull();
    const page = parseCsp(meta![1]!);
    expect(meta![1]!.trim().startsWith("default-src 'none'")).toBe(true);
    const header = parseCsp(buildContentSecurityPolicy(null));
    for (const [directive, sources] of page) {
      // Both policies apply; a header stricter than the page's own would break the page.
      const allowed = header.get(directive) ?? header.get('default-src')!;
      for (const source of sources) expect(allowed, `${directive} ${source}`).toContain(source);
    }
  });

  it('loads no remote code: every script and stylesheet is a relative path', () => {
    const html = read('renderer', 'index.html');
    const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) expect(url).not.toMatch(/^(https?:)?\/\//);
  });
});

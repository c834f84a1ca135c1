import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadHostMemory } from '../../../../src-main/runtime/host-memory/loader';
import { addonCandidates, ADDON_FILE } from '../../../../src-main/runtime/host-memory/native-addon';

const dir = mkdtempSync(join(tmpdir(), 'ff-hm-loader-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('host memory loader', () => {
  const savedEnv = process.env.FF_HOST_MEMORY;
  afterEach(() => {
    if (savedEnv === undefined) delete process.env.FF_HOST_MEMORY;
    else process.env.FF_HOST_MEMORY = savedEnv;
  });

  it('falls back with "native addon not built" when the addon file is absent', () => {
    const memory = loadHostMemory({ addonPath: join(dir, 'absent', ADDON_FILE) });
    expect(memory.kind).toBe('fallback');
    expect(memory.capabilities().nativeReason).toBe('native addon not built');
    expect(memory.allocate(8).lockReason).toBe('native addon not built');
  });

  it('falls back, without throwing, when the file is not a loadable addon', () => {
    const bogus = join(dir, 'bogus.node');
    writeFileSync(bogus, 'not an ELF file');
    const memory = loadHostMemory({ addonPath: bogus });
    expect(memory.kind).toBe('fallback');
    expect(memory.capabilities().nativeReason).toMatch(/^native addon failed to load: /);
  });

  it('honours FF_HOST_MEMORY=fallback', () => {
    process.env.FF_HOST_MEMORY = 'fallback';
    expect(loadHostMemory().capabilities().nativeReason).toMatch(/FF_HOST_MEMORY=fallback/);
  });

  it('searches native/build/Release from this module upward and from the cwd', () => {
    const candidates = addonCandidates();
    expect(candidates).toContain(join(process.cwd(), 'native', 'build', 'Release', ADDON_FILE));
    expect(addonCandidates('/x/y.node')).toEqual(['/x/y.node']);
  });
});

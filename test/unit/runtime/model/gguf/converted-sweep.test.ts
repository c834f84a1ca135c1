import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ModelCatalogue } from '../../../../../src-main/runtime/model/catalogue';
import { sweepConversions } from '../../../../../src-main/runtime/model/gguf/converted-sweep';
import { CONVERTED_FILES } from '../../../../../src-main/runtime/model/gguf/gguf-convert';
import { RevisionCache } from '../../../../../src-main/runtime/model/revisions';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A scratch folder with a models folder (one .gguf stand-in) and a converted root. */
function scratch(): { models: string; converted: string; gguf: string } {
  const root = mkdtempSync(path.join(tmpdir(), 'ff-converted-sweep-'));
  roots.push(root);
  const models = path.join(root, 'models');
  const converted = path.join(root, 'ort-graphs', 'gguf');
  mkdirSync(models, { recursive: true });
  mkdirSync(converted, { recursive: true });
  const gguf = path.join(models, 'tiny.gguf');
  writeFileSync(gguf, 'stand-in');
  return { models, converted, gguf };
}

/** A finished conversion folder whose record names `sourcePath` (absent: an older record). */
function conversion(root: string, name: string, sourcePath?: string): string {
  const dir = path.join(root, name);
  mkdirSync(path.join(dir, 'onnx'), { recursive: true });
  writeFileSync(path.join(dir, CONVERTED_FILES.data), 'weights');
  writeFileSync(path.join(dir, CONVERTED_FILES.record), JSON.stringify({ source: ['x.gguf'], sourcePath }));
  return dir;
}

describe('sweepConversions', () => {
  it('removes the conversion of a GGUF that was removed and keeps the one whose file is there', () => {
    const { converted, gguf } = scratch();
    const kept = conversion(converted, 'kept', gguf);
    const gone = conversion(converted, 'gone', path.join(path.dirname(gguf), 'deleted.gguf'));
    const swept = sweepConversions(converted, new Map(), () => {});
    expect(swept).toEqual([{ dir: gone, reason: 'source-removed' }]);
    expect(existsSync(gone)).toBe(false);
    expect(existsSync(kept)).toBe(true);
  });

  it('removes the conversion of a file replaced under the same path (it lists under another folder now)', () => {
    const { converted, gguf } = scratch();
    const old = conversion(converted, 'old', gguf);
    const current = conversion(converted, 'current', gguf);
    const swept = sweepConversions(converted, new Map([[gguf, current]]), () => {});
    expect(swept).toEqual([{ dir: old, reason: 'source-changed' }]);
    expect(existsSync(current)).toBe(true);
  });

  it('leaves a folder whose record does not name its file, and one still being written', () => {
    const { converted } = scratch();
    const older = conversion(converted, 'older');
    const partial = path.join(converted, 'x.partial-1');
    mkdirSync(partial);
    expect(sweepConversions(converted, new Map(), () => {})).toEqual([]);
    expect(existsSync(older) && existsSync(partial)).toBe(true);
  });
});

describe('ModelCatalogue.refresh', () => {
  it('removes the converted folder of a GGUF deleted from the models folder', async () => {
    const { models, converted, gguf } = scratch();
    const dir = conversion(converted, 'tiny', gguf);
    const bundled = path.join(path.dirname(models), 'bundled');
    mkdirSync(bundled);
    const catalogue = new ModelCatalogue(bundled, models, new RevisionCache(null), null, converted);
    await catalogue.refresh();
    expect(existsSync(dir)).toBe(true);
    rmSync(gguf);
    await catalogue.refresh();
    expect(existsSync(dir)).toBe(false);
  });
});

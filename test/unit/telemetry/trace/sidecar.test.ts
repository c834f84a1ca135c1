import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readTraceSidecar } from '../../../../src-main/telemetry/trace/sidecar';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the trace sidecar', () => {
  it('is absent only when its file does not exist; one that cannot be read or parsed says why', () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'ff-sidecar-'));
    expect(readTraceSidecar(path.join(dir, 'run.jsonl'))).toBeNull();
    // A "folder" that is a file: the sidecar's path cannot even be looked at (ENOTDIR).
    writeFileSync(path.join(dir, 'not-a-folder'), '');
    expect(readTraceSidecar(path.join(dir, 'not-a-folder', 'run.jsonl'))).toEqual({
      problem: expect.stringMatching(/not-a-folder\/run\.meta\.json: cannot be read \(ENOTDIR/),
    });
    // A sidecar that is a folder: it exists, and reading it fails (EISDIR).
    mkdirSync(path.join(dir, 'odd.meta.json'));
    expect(readTraceSidecar(path.join(dir, 'odd.jsonl'))).toEqual({
      problem: expect.stringMatching(/odd\.meta\.json: cannot be read \(EISDIR/),
    });
    writeFileSync(path.join(dir, 'bad.meta.json'), '{"engine":');
    expect(readTraceSidecar(path.join(dir, 'bad.jsonl'))).toEqual({
      problem: expect.stringMatching(/bad\.meta\.json: not JSON/),
    });
  });
});

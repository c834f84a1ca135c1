import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The repository must stand on its own: a fresh clone has no design brief or shared folder
// beside it, so no file may send a reader there. The project's vocabulary is docs/design.md.

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const THIS_FILE = path.relative(ROOT, fileURLToPath(import.meta.url));
/** Folders that are not the project's own text (dependencies, builds, model data). */
const SKIPPED = new Set([
  'node_modules',
  '.git',
  'out',
  'dist',
  'release',
  '.cache',
  'test-results',
  'build',
]);
const SKIPPED_PATHS = ['resources/models'];
const TEXT = /\.(ts|tsx|js|mjs|cjs|json|md|css|html|yml|yaml|gyp|cc|cpp|h|sh)$|^run$/;

/** Citations of material outside the repository. */
const OUTSIDE = [
  /DESIGN\.md/,
  /\bDESIGN\s*§/,
  /§\s*\d/,
  /\.\.\/shared\b/,
  /\/work\/shared\b/,
  /\bshared\/seeds\b/,
];

function* textFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    const relative = path.relative(ROOT, full);
    if (SKIPPED.has(name) || SKIPPED_PATHS.includes(relative)) continue;
    if (statSync(full).isDirectory()) yield* textFiles(full);
    else if (TEXT.test(name)) yield relative;
  }
}

describe('the repository stands on its own', () => {
  it('cites nothing outside it (no design brief, section numbers or shared folder)', () => {
    const found: string[] = [];
    let numFiles = 0;
    for (const file of textFiles(ROOT)) {
      if (file === THIS_FILE) continue;
      numFiles += 1;
      readFileSync(path.join(ROOT, file), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (OUTSIDE.some((pattern) => pattern.test(line))) found.push(`${file}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(numFiles).toBeGreaterThan(200);
    expect(found).toEqual([]);
  });

  it('keeps its own vocabulary in docs/design.md', () => {
    const design = readFileSync(path.join(ROOT, 'docs', 'design.md'), 'utf8');
    for (const term of [
      'Model slot',
      'Sequence seat',
      'Context page',
      'slotRevision',
      'unattributed',
      'transport',
    ])
      expect(design).toContain(term);
  });
});

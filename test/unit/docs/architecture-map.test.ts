import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The architecture map names files and folders as its claims: each must exist, or the map has
// drifted from the code.

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/** Where a path the map writes short (`runtime/…`, `telemetry/…`) lives. */
const SHORT_ROOTS = ['runtime/', 'telemetry/', 'store/', 'service/', 'host/'];

function pathsIn(markdown: string): string[] {
  const paths = new Set<string>();
  for (const [, token] of markdown.matchAll(/`([^`\s]+)`/g)) {
    const cleaned = token!.replace(/[.,;:]$/, '');
    const isPath = /^(src-main|src-renderer|src-preload|docs|test|bench|native)\//.test(cleaned);
    const isShort = SHORT_ROOTS.some((root) => cleaned.startsWith(root));
    if (isPath) paths.add(cleaned);
    else if (isShort) paths.add(`src-main/${cleaned}`);
  }
  return [...paths];
}

describe('docs/architecture.md', () => {
  it('names only files and folders that exist', () => {
    const paths = pathsIn(readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8'));
    expect(paths.length).toBeGreaterThan(30);
    expect(paths.filter((p) => !existsSync(path.join(ROOT, p)))).toEqual([]);
  });

  it('fits on about a page: the long explanations live beside the code', () => {
    const numLines = readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8').split('\n').length;
    expect(numLines).toBeLessThanOrEqual(150);
  });
});

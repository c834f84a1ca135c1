import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The architecture map's claims, each checked against the code: the paths it names exist, the
// import table is the imports the code has, and the sequence state it gives the scheduler is
// written nowhere else.

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SRC_MAIN = path.join(ROOT, 'src-main');
const MAP = readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');
/** Where a path the map writes short (`runtime/…`, `telemetry/…`) lives. */
const SHORT_ROOTS = ['runtime/', 'telemetry/', 'history/', 'service/', 'host/'];

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

/** Every TypeScript file under `dir`, as absolute paths. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.tsx?$/.test(name))
    .map((name) => path.join(dir, name));
}

/** The relative specifiers a file imports (static, re-exports and dynamic). */
function relativeImports(source: string): string[] {
  const specs = source.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^import\s+)'(\.[^']*)'/gm);
  return [...specs].map((match) => match[1]!);
}

/** The room (top folder of src-main/) a path under src-main/ belongs to, or the leaf it is. */
function placeOf(absolute: string): string {
  const first = path.relative(SRC_MAIN, absolute).split(path.sep)[0]!;
  const isFolder =
    existsSync(path.join(SRC_MAIN, first)) && statSync(path.join(SRC_MAIN, first)).isDirectory();
  return isFolder ? first : `${first.replace(/\.ts$/, '')}.ts`;
}

/** The leaf modules the map lets every room import, as places (`limits.ts`, `threads`). */
function leavesInMap(markdown: string): Set<string> {
  const sentence = markdown.split('Leaf modules every room may import:')[1]!.split('\n\n')[0]!;
  const leaves = [...sentence.matchAll(/`src-main\/([^`/]+)\/?`/g)].map((match) => match[1]!);
  return new Set(leaves);
}

/** The import table: each room and the rooms it may import. */
function importTable(markdown: string): Map<string, Set<string>> {
  const table = new Map<string, Set<string>>();
  for (const [, room, imports] of markdown.matchAll(/^\| `(\w+)`\s*\| ([^|]+)\|/gm)) {
    const names = [...imports!.matchAll(/`(\w+)`/g)].map((match) => match[1]!);
    table.set(room!, new Set(names));
  }
  return table;
}

/** What each room really imports from the other rooms, as `room → room` edges. */
function importsInCode(leaves: Set<string>): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const file of sourceFiles(SRC_MAIN)) {
    const from = placeOf(file);
    if (leaves.has(from)) continue;
    for (const spec of relativeImports(readFileSync(file, 'utf8'))) {
      const target = path.resolve(path.dirname(file), spec);
      if (!target.startsWith(SRC_MAIN + path.sep)) continue;
      const to = placeOf(target);
      if (to === from || leaves.has(to)) continue;
      edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  return edges;
}

/** `room → room` lines of a table, sorted, for a readable diff. */
function edgeLines(table: Map<string, Set<string>>): string[] {
  return [...table].flatMap(([from, tos]) => [...tos].map((to) => `${from} → ${to}`)).sort();
}

/** A sequence's fields the scheduler owns: all it declares but the objects other owners write. */
function sequenceFields(): string[] {
  const source = readFileSync(path.join(SRC_MAIN, 'runtime/scheduler/sequence.ts'), 'utf8');
  const body = source.split('export class Sequence {')[1]!.split('\n  constructor(')[0]!;
  const declared = [...body.matchAll(/^ {2}(?:readonly )?(\w+)\s*[:=]/gm)].map((match) => match[1]!);
  // The request, its sink, its timeline recorder and its slot are only referred to: each has its own writer.
  return [...declared, 'sampler'].filter((field) => !['request', 'sink', 'recorder', 'slot'].includes(field));
}

/** Lines outside the scheduler room that change a sequence's own state (assign, push, feed its matchers). */
function sequenceWritesOutsideScheduler(fields: string[]): string[] {
  const names = fields.join('|');
  // A field reached through the recorder (`seq.recorder.meta.numCachedTokens`) is the recorder's.
  const ownField = `(?<!recorder(\\.\\w+)*)\\.(${names})`;
  const assigns = new RegExp(`${ownField}(\\.\\w+)*\\s*(=(?![=>])|\\+=|-=|\\+\\+|--)`);
  const mutates = new RegExp(`${ownField}\\.(push|pop|shift|unshift|splice|flush|reset)\\(`);
  const writes: string[] = [];
  const scheduler = path.join(SRC_MAIN, 'runtime/scheduler') + path.sep;
  for (const file of sourceFiles(path.join(SRC_MAIN, 'runtime'))) {
    const source = readFileSync(file, 'utf8');
    if (file.startsWith(scheduler) || !/from '[./]*scheduler\//.test(source)) continue;
    source.split('\n').forEach((line, i) => {
      const code = line.replace(/\/\/.*$/, '');
      if (assigns.test(code) || mutates.test(code)) writes.push(`${path.relative(ROOT, file)}:${i + 1}`);
    });
  }
  return writes;
}

describe('docs/architecture.md', () => {
  it('names only files and folders that exist', () => {
    const paths = pathsIn(MAP);
    expect(paths.length).toBeGreaterThan(30);
    expect(paths.filter((p) => !existsSync(path.join(ROOT, p)))).toEqual([]);
  });

  it("states every room's imports: the table allows each import in src-main/ and names none that is not there", () => {
    const leaves = leavesInMap(MAP);
    expect([...leaves]).toEqual(expect.arrayContaining(['limits.ts', 'threads']));
    const claimed = importTable(MAP);
    expect([...claimed.keys()]).toEqual(expect.arrayContaining(['runtime', 'history', 'service', 'host']));
    expect(edgeLines(importsInCode(leaves))).toEqual(edgeLines(claimed));
  });

  it("gives sequence state one writer: no runtime file outside the scheduler room changes a sequence's fields", () => {
    const fields = sequenceFields();
    expect(fields).toEqual(expect.arrayContaining(['outputIds', 'text', 'lastQueuePosition', 'sampler']));
    expect(sequenceWritesOutsideScheduler(fields)).toEqual([]);
  });

  it('fits on about a page: the long explanations live beside the code', () => {
    expect(MAP.split('\n').length).toBeLessThanOrEqual(150);
  });
});

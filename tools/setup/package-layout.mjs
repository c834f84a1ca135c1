// @ts-check
// What a packaged app must contain, and a check of an unpacked package against it: the app's
// entry and every worker entry inside app.asar (the ESM main bundle finds the workers beside
// itself at run time), every production dependency, the native add-ons unpacked beside the
// asar, SQLite for Electron and the bundled models in resources, and never Node's SQLite build.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

/** Files under resources/ (beside app.asar) that a working package needs. */
export const RESOURCE_FILES = ['electron-native/better_sqlite3.node', 'models/ff-austen-mini/config.json'];

/** Inside app.asar: Node's build of better-sqlite3 must not ship (Electron cannot load it). */
export const FORBIDDEN_IN_ASAR = ['node_modules/better-sqlite3/build/Release/better_sqlite3.node'];

/**
 * Every bundle entry electron-vite wrote (out/main's top-level files are the main entry and the
 * worker entries; chunks/ holds what they share), the preload and the page.
 * @param {string} repoDir
 */
export function bundleEntries(repoDir) {
  const mainDir = join(repoDir, 'out', 'main');
  if (!existsSync(mainDir)) throw new Error('out/main is missing: run `npm run build` first');
  const main = readdirSync(mainDir)
    .filter((name) => name.endsWith('.js'))
    .map((name) => `out/main/${name}`);
  return [...main.sort(), 'out/preload/index.cjs', 'out/renderer/index.html', 'package.json'];
}

/**
 * The folder a package resolves to from `fromDir`, as Node resolves it (nearest node_modules up
 * to the repository), or null when it is not installed.
 * @param {string} name
 * @param {string} fromDir
 * @param {string} repoDir
 */
function resolvePackageDir(name, fromDir, repoDir) {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === repoDir || dirname(dir) === dir) return null;
  }
}

/**
 * Every production dependency (package.json `dependencies`, transitively, optional ones only
 * when installed) as the path of its package.json relative to the repository.
 * @param {string} repoDir
 */
export function productionPackageFiles(repoDir) {
  /** @type {Set<string>} */
  const found = new Set();
  /** @param {string} packageDir */
  const visit = (packageDir) => {
    const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
    const required = Object.keys(manifest.dependencies ?? {});
    const optional = Object.keys(manifest.optionalDependencies ?? {});
    for (const name of [...required, ...optional]) {
      const dir = resolvePackageDir(name, packageDir, repoDir);
      if (dir === null) {
        if (required.includes(name) && !optional.includes(name))
          throw new Error(`${name} (needed by ${manifest.name ?? 'the app'}) is not installed`);
        continue;
      }
      const file = relative(repoDir, join(dir, 'package.json')).split(sep).join('/');
      if (found.has(file)) continue;
      found.add(file);
      visit(dir);
    }
  };
  visit(repoDir);
  return [...found].sort();
}

/**
 * @typedef {object} LayoutInput
 * @property {string[]} asarFiles       paths inside app.asar, without a leading slash
 * @property {string[]} unpackedFiles   paths under app.asar.unpacked
 * @property {string[]} resourceFiles   paths under resources/ (beside app.asar)
 * @property {string[]} bundleEntries   from bundleEntries()
 * @property {string[]} packageFiles    from productionPackageFiles()
 * @property {string[]} nativeFiles     `.node` files the app loads, relative to the repository
 */

/**
 * The problems with one unpacked package, each a sentence; empty when it is complete.
 * @param {LayoutInput} layout
 */
export function layoutProblems(layout) {
  const asar = new Set(layout.asarFiles);
  const unpacked = new Set(layout.unpackedFiles);
  const resources = new Set(layout.resourceFiles);
  const problems = [];
  for (const entry of layout.bundleEntries) if (!asar.has(entry)) problems.push(`app.asar lacks ${entry}`);
  for (const file of layout.packageFiles)
    if (!asar.has(file))
      problems.push(`app.asar lacks the dependency ${file.replace(/\/package\.json$/, '')}`);
  for (const file of layout.nativeFiles)
    if (!unpacked.has(file))
      problems.push(`${file} is not unpacked beside app.asar (native code cannot load from it)`);
  for (const file of RESOURCE_FILES) if (!resources.has(file)) problems.push(`resources/${file} is missing`);
  for (const file of FORBIDDEN_IN_ASAR)
    if (asar.has(file) || unpacked.has(file)) problems.push(`${file} (Node's build) is packed`);
  return problems;
}

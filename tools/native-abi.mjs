#!/usr/bin/env node
// Tells which native modules must be rebuilt for Electron. A `.node` file is either a Node-API
// module (exports `napi_register_module_v1`: one build loads in any Node or Electron with that
// Node-API version) or tied to one runtime ABI (exports `node_register_module_v<ABI>`: Node 20
// is 115, Electron 40 is 143). Reads the files as bytes: no compiler, no Electron needed.
//
//   node tools/native-abi.mjs            classify the app's native modules, exit 1 if one
//                                        would not load in the declared Electron
//   node tools/native-abi.mjs FILE...    classify the given files
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readElectronPackage } from './setup/electron-release.mjs';

const REPO_DIR = fileURLToPath(new URL('..', import.meta.url));

/** The packages whose native files ship with the app, relative to the repository. */
export const NATIVE_ROOTS = [
  'node_modules/better-sqlite3/build/Release',
  'node_modules/onnxruntime-node/bin',
  'native/build/Release',
];

/**
 * Classifies one `.node` file's bytes: `{ kind: 'node-api' }`, `{ kind: 'abi', abi }`, or
 * `{ kind: 'unknown' }`. `usesV8` is true when it names V8's C++ symbols (Node-API modules
 * that also do so are not ABI-safe).
 */
export function classifyNativeModule(bytes) {
  const text = Buffer.from(bytes).toString('latin1');
  const abiMatch = /node_register_module_v(\d+)/.exec(text);
  const usesV8 = text.includes('_ZN2v8');
  if (abiMatch) return { kind: 'abi', abi: Number(abiMatch[1]), usesV8 };
  if (text.includes('napi_register_module_v1')) return { kind: 'node-api', usesV8 };
  return { kind: 'unknown', usesV8 };
}

/** Whether a classified module loads in a runtime with this ABI without a rebuild. */
export function loadsInAbi(classification, abi) {
  if (classification.kind === 'node-api') return !classification.usesV8;
  return classification.kind === 'abi' && classification.abi === abi;
}

/** Every `.node` file under `dir` (recursively; build intermediates under obj.target skipped). */
export function findNativeFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'obj.target' ? [] : findNativeFiles(path);
    return name.endsWith('.node') ? [path] : [];
  });
}

/** One line per file: what it is and whether it loads in Node here and in Electron. */
function describe(file, electronAbi) {
  const c = classifyNativeModule(readFileSync(file));
  if (c.kind === 'unknown')
    return { line: `${relative(REPO_DIR, file)}: not a Node addon (ignored)`, isOk: true };
  const what = c.kind === 'abi' ? `ABI ${c.abi}` : c.kind;
  const inNode = loadsInAbi(c, Number(process.versions.modules)) ? 'yes' : 'no';
  // Electron never loads node_modules' better-sqlite3: it has its own build (see below).
  const isNodeOnly = relative(REPO_DIR, file).startsWith(join('node_modules', 'better-sqlite3'));
  const inElectron = isNodeOnly
    ? 'uses its own build'
    : electronAbi === null
      ? '?'
      : loadsInAbi(c, electronAbi)
        ? 'yes'
        : 'REBUILD';
  return {
    line: `${relative(REPO_DIR, file)}: ${what}${c.usesV8 ? ' (uses V8 C++ API)' : ''}; Node ${inNode}; Electron ${inElectron}`,
    isOk: inElectron !== 'REBUILD',
  };
}

/** The line for better-sqlite3's Electron build (its own folder), and whether it is usable. */
function describeElectronSqlite(electronAbi, version) {
  if (electronAbi === null) return null;
  const file = join(
    REPO_DIR,
    '.cache',
    'electron-native',
    `electron-${version}-${process.platform}-${process.arch}`,
    'better_sqlite3.node',
  );
  if (!existsSync(file))
    return { line: `${relative(REPO_DIR, file)}: missing (npm run electron:fetch builds it)`, isOk: false };
  const c = classifyNativeModule(readFileSync(file));
  const isOk = loadsInAbi(c, electronAbi);
  return {
    line: `${relative(REPO_DIR, file)}: ABI ${c.abi ?? '?'}; Electron ${isOk ? 'yes' : 'REBUILD'}`,
    isOk,
  };
}

function main(args) {
  const { abi: electronAbi, version } = readElectronPackage(REPO_DIR);
  const files =
    args.length > 0 ? args : NATIVE_ROOTS.flatMap((root) => findNativeFiles(join(REPO_DIR, root)));
  console.log(
    `Node ABI ${process.versions.modules}; Electron ${version} ABI ${electronAbi ?? 'unknown (not installed: npm run electron:fetch)'}`,
  );
  const results = files.map((file) => describe(file, electronAbi));
  const electronSqlite = args.length > 0 ? null : describeElectronSqlite(electronAbi, version);
  if (electronSqlite) results.push(electronSqlite);
  results.forEach((result) => console.log(`  ${result.line}`));
  const numToRebuild = results.filter((result) => !result.isOk).length;
  if (numToRebuild > 0)
    console.log(`${numToRebuild} file(s) missing or not built for Electron: npm run electron:fetch`);
  return numToRebuild > 0 ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1])
  process.exitCode = main(process.argv.slice(2));

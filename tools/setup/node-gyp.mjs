// @ts-check
// node-gyp as the setup steps run it: npm's own copy, Node's bundled headers when they exist
// (so an offline machine can compile for Node), and an environment that cannot silently point
// an Electron build at Node's headers.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

/**
 * node-gyp's CLI script: the one npm passes to lifecycle scripts (npm_config_node_gyp), npm's
 * bundled copy beside this Node, or one in node_modules; null when there is none.
 * @param {NodeJS.ProcessEnv} env
 * @param {string} repoDir
 */
export function findNodeGyp(env, repoDir) {
  const npmCopy = join(
    dirname(process.execPath),
    '../lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js',
  );
  const found = [env.npm_config_node_gyp, npmCopy].find((path) => path && existsSync(path));
  if (found) return found;
  try {
    return createRequire(join(repoDir, 'package.json')).resolve('node-gyp/bin/node-gyp.js');
  } catch {
    // Not installed anywhere we know of: the caller reports "node-gyp not found".
    return null;
  }
}

/**
 * For a build against this Node: `--nodedir` at the headers that ship with Node (present in the
 * official tarballs and Debian's nodejs-dev), unless npm already names a nodedir. Without it
 * node-gyp downloads the headers, which fails offline.
 * @param {NodeJS.ProcessEnv} env
 */
export function nodeHeadersArgs(env) {
  if (env.npm_config_nodedir) return [];
  const prefix = resolve(dirname(process.execPath), '..');
  return existsSync(join(prefix, 'include', 'node', 'common.gypi')) ? [`--nodedir=${prefix}`] : [];
}

/**
 * The environment for a build against Electron's headers: npm's `nodedir`, `target`, `runtime`,
 * `disturl` and `arch` (a user's ~/.npmrc may set nodedir, which npm passes to every script)
 * would make node-gyp build for Node instead, a silent wrong-ABI build, so they are removed;
 * so is npm's `loglevel`, which node-gyp prefers to its own --loglevel flag.
 * @param {NodeJS.ProcessEnv} env
 */
export function electronBuildEnv(env) {
  /** @type {NodeJS.ProcessEnv} */
  const cleaned = { ...env };
  for (const key of Object.keys(cleaned))
    if (/^npm_config_(nodedir|target|runtime|disturl|dist_url|arch|loglevel)$/i.test(key))
      delete cleaned[key];
  return cleaned;
}

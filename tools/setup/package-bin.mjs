// @ts-check
// The JS file behind an installed package's command, to run it with this Node (npm's .bin
// shims are shell scripts on POSIX and .cmd files on Windows; `node <file>` works everywhere).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The entry of `pkg`'s command `name` (its package.json `bin`), resolved from `repoDir`.
 * @param {string} repoDir
 * @param {string} pkg
 * @param {string} name
 */
export function packageBin(repoDir, pkg, name) {
  const require = createRequire(join(repoDir, 'package.json'));
  const manifestPath = require.resolve(`${pkg}/package.json`);
  const manifest = require(manifestPath);
  const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin[name];
  return join(dirname(manifestPath), bin);
}

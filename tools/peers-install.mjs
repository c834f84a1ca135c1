// `npm run peers:install [-- --gpu]`: installs llama.cpp's Node binding (node-llama-cpp, pinned)
// with only this platform's prebuilt CPU binary into .cache/peers, outside the project's
// dependencies, so `npm ci` stays lean. `--gpu` adds the CUDA build (Linux/Windows x64). koffi (an
// FFI with prebuilt binaries in its package) lets the GGUF oracles call llama.cpp's quantizer.
// The peers benchmark and the llama.cpp oracle tests load them from there; the app never does.

import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Newer releases' lock files may not install offline-mirrored registries; pin exactly. */
const VERSION = '3.21.1';
/** koffi: calls llama_model_quantize and ggml's block (de)quantizers in node-llama-cpp's libraries. */
const KOFFI_VERSION = '3.3.4';
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PEERS_DIR = join(ROOT, '.cache', 'peers');

/** node-llama-cpp's prebuilt binary package for this platform (its optionalDependencies' names). */
function binaryPackage(platform, arch) {
  const names = {
    'linux-x64': 'linux-x64',
    'linux-arm64': 'linux-arm64',
    'linux-arm': 'linux-armv7l',
    'darwin-arm64': 'mac-arm64-metal',
    'darwin-x64': 'mac-x64',
    'win32-x64': 'win-x64',
    'win32-arm64': 'win-arm64',
  };
  const name = names[`${platform}-${arch}`];
  if (!name) throw new Error(`node-llama-cpp ${VERSION} has no prebuilt binary for ${platform}-${arch}`);
  return `@node-llama-cpp/${name}@${VERSION}`;
}

function gpuPackage(platform, arch) {
  if (arch === 'x64' && (platform === 'linux' || platform === 'win32'))
    return `@node-llama-cpp/${platform === 'linux' ? 'linux' : 'win'}-x64-cuda@${VERSION}`;
  throw new Error(`--gpu: node-llama-cpp ${VERSION} has a CUDA build only for Linux and Windows x64`);
}

function main(argv) {
  const isGpu = argv.includes('--gpu');
  const packages = [
    `node-llama-cpp@${VERSION}`,
    binaryPackage(process.platform, process.arch),
    `koffi@${KOFFI_VERSION}`,
  ];
  if (isGpu) packages.push(gpuPackage(process.platform, process.arch));
  mkdirSync(PEERS_DIR, { recursive: true });
  writeFileSync(
    join(PEERS_DIR, 'package.json'),
    `${JSON.stringify({ name: 'first-frame-peers', private: true, description: 'llama.cpp for npm run bench -- peers' }, null, 2)}\n`,
  );
  console.log(`installing ${packages.join(' ')} into ${PEERS_DIR}`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(
    npm,
    ['install', '--save-exact', '--omit=optional', '--no-audit', '--no-fund', ...packages],
    {
      cwd: PEERS_DIR,
      stdio: 'inherit',
      // The binding's postinstall would otherwise try to download or build llama.cpp.
      env: { ...process.env, NODE_LLAMA_CPP_SKIP_DOWNLOAD: 'true' },
    },
  );
  if (result.status !== 0) {
    console.error(`npm install failed (${result.error?.message ?? `exit ${result.status}`})`);
    return 1;
  }
  console.log('done: npm run bench -- peers --engines llama.cpp');
  return 0;
}

process.exitCode = main(process.argv.slice(2));

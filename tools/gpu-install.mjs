// @ts-check
// `npm run gpu:install`: the opt-in GPU path. onnxruntime-node's own installer downloads the
// CUDA 12 and TensorRT execution providers (several hundred MB from NuGet) into its bin folder;
// the normal install skips them on every npm version (`.npmrc`: onnxruntime-node-install=skip).
// They need an NVIDIA driver and CUDA 12 on the machine to be of any use.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { classifyFetchFailure } from './setup/network.mjs';
import { PREFIX, failureBlock, formatSeconds, runQuietStep } from './setup/quiet-step.mjs';

const REPO_DIR = fileURLToPath(new URL('..', import.meta.url));
const ORT_DIR = join(REPO_DIR, 'node_modules', 'onnxruntime-node');

async function main() {
  // onnxruntime-node 1.30's install-metadata.js lists GPU files for linux/x64 only.
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    console.log(
      `${PREFIX} onnxruntime-node has no GPU files to download for ${process.platform}-${process.arch}.`,
    );
    return 0;
  }
  const args = [join(ORT_DIR, 'script', 'install.js')];
  const result = await runQuietStep({
    command: process.execPath,
    args,
    cwd: ORT_DIR,
    env: { ...process.env, ONNXRUNTIME_NODE_INSTALL: 'cuda12' },
    announce: `${PREFIX} downloading ONNX Runtime's CUDA 12 providers (several hundred MB, from NuGet)…`,
    activity: 'downloading the CUDA providers',
    print: (line) => console.log(line),
  });
  if (result.isOk) {
    console.log(
      `${PREFIX} CUDA providers installed (${formatSeconds(result.elapsedMs)}); pick provider "cuda" in Settings.`,
    );
    return 0;
  }
  const why = classifyFetchFailure(result.output, result.isTimedOut);
  if (why.kind !== 'offline') console.error(failureBlock(`node ${args.join(' ')}`, result));
  console.error(`${PREFIX} the CUDA providers could not be downloaded: ${why.detail}.`);
  return 1;
}

process.exitCode = await main();

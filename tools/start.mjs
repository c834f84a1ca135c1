/**
 * `npm start`: the desktop app where it can run, the headless host where it cannot.
 * Electron needs its binary (skipped by offline installs) and a display; without either, this
 * builds the renderer and serves it from the headless host instead, saying why in one line.
 * Arguments after `--` go to the headless host (`npm start -- --port 0`).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);

/** The Electron binary's path, or null with the reason it cannot be used. */
function findElectron() {
  try {
    const binary = require('electron');
    return existsSync(binary)
      ? { binary }
      : { reason: `the Electron binary is not installed (${binary} is missing)` };
  } catch {
    return { reason: 'the Electron binary is not installed (its download was skipped or failed)' };
  }
}

/** Why no window can open here, or null when a display is available. */
function missingDisplay() {
  if (process.platform !== 'linux') return null;
  if (process.env.DISPLAY || process.env.WAYLAND_DISPLAY) return null;
  return 'there is no display ($DISPLAY and $WAYLAND_DISPLAY are unset)';
}

/** The JS entry of a dev dependency's command, run with this Node. */
function binOf(pkg, name) {
  const manifest = require(`${pkg}/package.json`);
  const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin[name];
  return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), bin);
}

/** Runs a command with inherited stdio; resolves with its exit code. */
function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: 'inherit' });
    const forward = (signal) => child.kill(signal);
    process.on('SIGINT', forward).on('SIGTERM', forward);
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward).off('SIGTERM', forward);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

async function main() {
  const electron = findElectron();
  const why = electron.reason ?? missingDisplay();
  if (why) console.log(`Starting the headless host for your browser instead of the desktop window: ${why}.`);
  const build = await run(process.execPath, [
    binOf('electron-vite', 'electron-vite'),
    'build',
    '--logLevel',
    'warn',
  ]);
  if (build !== 0) return build;
  if (!why) return run(electron.binary, ['.', ...process.argv.slice(2)]);
  return run(process.execPath, [binOf('tsx', 'tsx'), 'src-main/cli/serve.ts', ...process.argv.slice(2)]);
}

main().then((code) => process.exit(code));

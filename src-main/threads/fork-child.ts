import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * A child process started quietly: its stdout and stderr come to the caller (never the
 * terminal), and it answers over its message channel.
 */
export interface QuietChild {
  onMessage(listener: (message: unknown) => void): void;
  /** Each chunk the child wrote to stdout or stderr. */
  onOutput(listener: (text: string) => void): void;
  /** The child ended: how (`exit 1`, `SIGKILL`), or why it could not start. */
  onEnd(listener: (how: string) => void): void;
  kill(): void;
}

/**
 * Starts an entry as a QuietChild: `<bundledName>.js` in a bundle, or the TypeScript entry at
 * `sourceEntry` from source. Node's is `forkChild`; the desktop app passes one built on
 * Electron's utility process, whose binary cannot run as plain Node once packaged.
 */
export type ChildStarter = (bundledName: string, sourceEntry: URL) => QuietChild;

/**
 * Node's ChildStarter: in a bundle the entry is `<bundledName>.js` beside the main bundle (as
 * spawn-worker.ts finds workers); from source (tsx, vitest) Node runs the TypeScript entry with
 * tsx's loader.
 */
export const forkChild: ChildStarter = (bundledName, sourceEntry) => {
  const options = { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] as ('ignore' | 'pipe' | 'ipc')[] };
  const bundled = bundledEntry(bundledName, import.meta.url);
  const tsx = bundled ? null : pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const child = bundled
    ? fork(bundled, [], { ...options, execArgv: [] })
    : fork(fileURLToPath(sourceEntry), [], { ...options, execArgv: ['--import', tsx!] });
  return {
    onMessage: (listener) => void child.on('message', listener),
    onOutput: (listener) => {
      child.stdout?.on('data', (chunk: Buffer) => listener(chunk.toString('utf8')));
      child.stderr?.on('data', (chunk: Buffer) => listener(chunk.toString('utf8')));
    },
    onEnd: (listener) => {
      child.once('error', (error) => listener(error.message));
      child.once('exit', (code, signal) => listener(signal ?? `exit ${code}`));
    },
    kill: () => void child.kill('SIGKILL'),
  };
};

/** `<bundledName>.js` beside the bundle `moduleUrl` belongs to (or one folder up), or null from source. */
export function bundledEntry(bundledName: string, moduleUrl: string): string | null {
  for (const relative of [`./${bundledName}.js`, `../${bundledName}.js`]) {
    const bundled = fileURLToPath(new URL(relative, moduleUrl));
    if (existsSync(bundled)) return bundled;
  }
  return null;
}

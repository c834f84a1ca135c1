import { utilityProcess } from 'electron';
import { bundledEntry } from '../../threads/fork-child';
import type { ChildStarter } from '../../threads/fork-child';

/**
 * The desktop app's ChildStarter: Electron's utility process (a Node child that needs no
 * ELECTRON_RUN_AS_NODE, which the packaged binary refuses), its stdout and stderr piped to the
 * caller. Only bundled entries: the app always runs from its bundle.
 */
export const startUtilityChild: ChildStarter = (bundledName) => {
  const entry = bundledEntry(bundledName, import.meta.url);
  if (entry === null) throw new Error(`${bundledName}.js is not beside the main bundle`);
  const child = utilityProcess.fork(entry, [], { stdio: 'pipe', serviceName: bundledName });
  return {
    onMessage: (listener) => void child.on('message', listener),
    onOutput: (listener) => {
      child.stdout?.on('data', (chunk: Buffer) => listener(chunk.toString('utf8')));
      child.stderr?.on('data', (chunk: Buffer) => listener(chunk.toString('utf8')));
    },
    onEnd: (listener) => void child.once('exit', (code) => listener(`exit ${code}`)),
    kill: () => void child.kill(),
  };
};

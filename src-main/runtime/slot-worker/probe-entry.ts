/**
 * Entry of the provider probe's child process: tries each execution provider once, sends what
 * it found to the parent and exits. Whatever ONNX Runtime or a GPU driver prints goes to pipes
 * the parent reads (probe-process.ts), not to the user's terminal. The parent is Node
 * (`process.send`) or, in the desktop app, Electron's utility process (`process.parentPort`).
 */
import { probeProviders } from './provider-probe';

type ParentPort = { postMessage(message: unknown): void };
const parentPort = (process as unknown as { parentPort?: ParentPort }).parentPort;

/** Sends the answer; a utility process is ended by its parent once the answer arrived. */
function reply(message: unknown, exitCode: number): void {
  if (parentPort) parentPort.postMessage(message);
  else process.send!(message, () => process.exit(exitCode));
}

void probeProviders().then(
  (providers) => reply({ providers }, 0),
  (error: unknown) => reply({ error: String(error) }, 1),
);

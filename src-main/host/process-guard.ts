import type { EventEmitter } from 'node:events';
import { reasonOf } from '../telemetry/log/log';
import type { Log } from '../telemetry/log/log';

/** How a host is told about, and stopped by, an error nothing else caught. */
export interface ProcessGuardOptions {
  /** The problem log (file and Problems panel). */
  log: Log;
  /** Where that log is on disk, named in the message a stopping host gives. */
  logPath: string;
  /** Tells the user the host is stopping and why (stderr; a dialog in the desktop app). */
  tell(message: string): void;
  /**
   * Stops the host in order (the store flushes); called once. `serve` then exits 1; the desktop
   * app quits through its quit gate (the dialog has told the user).
   */
  stop(): void;
  /** Emits the two process events (the process itself; a plain emitter in tests). */
  target?: Pick<EventEmitter, 'on' | 'off'>;
}

/**
 * The last line of defence, never silent. A promise that failed with nobody awaiting it ended
 * an asynchronous chain at its await: it is logged and the host keeps serving. An exception
 * that reached the event loop stopped some synchronous code halfway, leaving state no one can
 * vouch for (Node's documentation: not safe to resume): it is logged, the user is told what
 * happened and where the log is, and the host stops in order. Returns the uninstaller.
 */
export function guardProcess(options: ProcessGuardOptions): () => void {
  const target = options.target ?? process;
  let isStopping = false;
  const onRejection = (reason: unknown) =>
    options.log.warn(
      'process',
      `a promise failed and nothing handled it: ${describe(reason)}; still serving`,
    );
  const onException = (error: unknown) => {
    options.log.warn(
      'process',
      `uncaught error: ${describe(error)}${isStopping ? ' (while stopping)' : '; stopping'}`,
    );
    if (isStopping) return;
    isStopping = true;
    options.tell(
      `First Frame stopped after an unexpected error: ${reasonOf(error)}. Details are in ${options.logPath}; start it again to go on (your history is kept).`,
    );
    options.stop();
  };
  target.on('unhandledRejection', onRejection);
  target.on('uncaughtException', onException);
  return () => {
    target.off('unhandledRejection', onRejection);
    target.off('uncaughtException', onException);
  };
}

/** The message and, for an Error, where it was thrown (the stack's first frames). */
function describe(error: unknown): string {
  if (!(error instanceof Error) || !error.stack) return reasonOf(error);
  const frames = error.stack
    .split('\n')
    .slice(1, 4)
    .map((line) => line.trim());
  return `${error.message} (${frames.join(' ← ')})`;
}

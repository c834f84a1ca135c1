// Process lifecycle rules, on a minimal slice of Electron's `app` so tests drive them with a
// fake: one instance per user, and a quit that waits for the core's ordered shutdown (stop
// accepting, cancel in-flight, flush the SQLite writer, release slots) before the process exits.

/** The `app` events and calls the quit gate uses. */
export interface QuitAppLike {
  on(event: 'before-quit', listener: (event: { preventDefault(): void }) => void): unknown;
  quit(): void;
  /** Ends the process with this status at once (no before-quit); the gate calls it only after close. */
  exit(exitCode: number): void;
}

/** The `app` calls the single-instance rule uses. */
export interface SingleInstanceAppLike {
  requestSingleInstanceLock(): boolean;
  on(event: 'second-instance', listener: () => void): unknown;
  quit(): void;
}

/** How the gate shuts the core down. */
export interface QuitGateOptions {
  /** The core's ordered shutdown (core.close()). */
  close(): Promise<void>;
  /** Called once when shutdown starts, before close (e.g. stop forwarding events). */
  onShutdownStart?(): void;
  /** Longest wait for close before exiting anyway (ms). */
  timeoutMs?: number;
  log(message: string): void;
}

/** Whether new work may still start (false from the first quit request on), and a failing quit. */
export interface QuitGate {
  isAccepting(): boolean;
  /**
   * Quits through the gate like any quit (the core closes in order first), but the process then
   * exits with status 1, so whatever launched it (a shell, a service manager) sees the failure.
   */
  quitWithFailure(): void;
}

/** Longest a quit waits for the core to close before exiting anyway. */
export const DEFAULT_QUIT_TIMEOUT_MS = 15_000;

/** Resolves when `promise` settles or after `timeoutMs`, whichever is first; never rejects. */
async function settleWithin(
  promise: Promise<void>,
  timeoutMs: number,
  log: (message: string) => void,
): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      log(`shutdown still running after ${timeoutMs} ms; exiting anyway`);
      resolve();
    }, timeoutMs);
  });
  const closed = promise.catch((error: unknown) => {
    log(`shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
  });
  await Promise.race([closed, timeout]);
  clearTimeout(timer);
}

/**
 * Holds every quit (before-quit: preventDefault) until `close` resolves, fails or times out,
 * then quits for real (status 0, or 1 once `quitWithFailure` asked). close runs once however
 * many quits are requested meanwhile.
 */
export function installQuitGate(app: QuitAppLike, options: QuitGateOptions): QuitGate {
  let state: 'running' | 'closing' | 'closed' = 'running';
  let exitStatus: 'ok' | 'failed' = 'ok';
  app.on('before-quit', (event) => {
    if (state === 'closed') return;
    event.preventDefault();
    if (state === 'closing') return;
    state = 'closing';
    options.onShutdownStart?.();
    let closing: Promise<void>;
    try {
      closing = options.close();
    } catch (error) {
      closing = Promise.reject(error);
    }
    void settleWithin(closing, options.timeoutMs ?? DEFAULT_QUIT_TIMEOUT_MS, options.log).then(() => {
      state = 'closed';
      if (exitStatus === 'failed') app.exit(1);
      else app.quit();
    });
  });
  return {
    isAccepting: () => state === 'running',
    quitWithFailure: () => {
      exitStatus = 'failed';
      app.quit();
    },
  };
}

/**
 * Takes the single-instance lock. The first instance gets `onSecondInstance` when another is
 * launched (focus the window); a second instance quits at once and gets false.
 */
export function claimSingleInstance(app: SingleInstanceAppLike, onSecondInstance: () => void): boolean {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return false;
  }
  app.on('second-instance', onSecondInstance);
  return true;
}

import type { Worker } from 'node:worker_threads';
import type { Log } from '../../telemetry/log/log';
import { NOTICE_JOB_ID } from './protocol';
import type { Envelope, WorkerMessage } from './protocol';
import { spawnSlotWorker } from './spawn-worker';

/** How the spare stands: none now, starting (its modules loading), ready (idle), or off (closed or given up). */
export type SpareStatus = 'none' | 'starting' | 'ready' | 'off';

/** What the spare is doing, for tests and the bench. */
export interface SpareState {
  status: SpareStatus;
  /** The spare's thread id, or null when there is no spare. */
  threadId: number | null;
  /** Worker threads this pool has started (spares and fresh ones a take had to start). */
  numStarted: number;
  /** Of those, how many have not exited yet (taken ones included). */
  numLiveThreads: number;
  /** The last spare's start, spawn → its entry loaded (ms); null until one was ready. */
  lastStartMs: number | null;
}

/** A spare that died before it was needed this many times in a row is not replaced again. */
const MAX_FAILED_STARTS = 2;
/**
 * How long the runtime must stay quiet (nothing loading or running) before a spare starts: a
 * request seated right after a load would otherwise share its first steps' cores with the start.
 */
export const SPARE_QUIET_MS = 200;
/** How long close() lets a starting spare finish loading before stopping it anyway. */
const CLOSE_WAIT_MS = 10_000;

interface Spare {
  worker: Worker;
  isReady: boolean;
  /** Resolves once the worker is ready or has exited. */
  settled: Promise<void>;
  detach: () => void;
}

/**
 * One slot worker started ahead of need, with no model loaded: the next slot load takes it and
 * skips the thread's start (its modules, ONNX Runtime's binding; under tsx also transpiling).
 * The owner calls refill() when nothing is loading or running, so the replacement's start never
 * competes with a load or a step for a core. Every worker it starts is counted until it exits.
 */
export class SpareWorker {
  private spare: Spare | null = null;
  private readonly live = new Set<Worker>();
  private numStarted = 0;
  private numFailedInARow = 0;
  private lastStartMs: number | null = null;
  private isClosed = false;
  private quietTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly log: Log,
    private readonly spawn: () => Worker = spawnSlotWorker,
  ) {}

  /** Starts a spare unless one is there, the pool is closed, or spares keep dying. */
  refill(): void {
    if (this.isClosed || this.spare || this.numFailedInARow >= MAX_FAILED_STARTS) return;
    this.spare = this.startSpare();
  }

  /** Nothing is loading or running: a spare starts after SPARE_QUIET_MS unless holdOff() comes first. */
  refillWhenQuiet(): void {
    this.holdOff();
    if (this.isClosed || this.spare) return;
    this.quietTimer = setTimeout(() => {
      this.quietTimer = null;
      this.refill();
    }, SPARE_QUIET_MS);
    this.quietTimer.unref();
  }

  /** Something is loading or running: a pending refill waits for the next quiet moment. */
  holdOff(): void {
    if (this.quietTimer) clearTimeout(this.quietTimer);
    this.quietTimer = null;
  }

  /** The spare's worker (ready or still starting), or a freshly started one when there is none. */
  take(): Worker {
    const spare = this.spare;
    this.spare = null;
    if (!spare) return this.startThread();
    spare.detach();
    spare.worker.ref();
    return spare.worker;
  }

  /** Where the spare stands and how many threads this pool has started and still has running. */
  state(): SpareState {
    const isOff = this.isClosed || (!this.spare && this.numFailedInARow >= MAX_FAILED_STARTS);
    const status: SpareStatus = isOff
      ? 'off'
      : !this.spare
        ? 'none'
        : this.spare.isReady
          ? 'ready'
          : 'starting';
    return {
      status,
      threadId: this.spare?.worker.threadId ?? null,
      numStarted: this.numStarted,
      numLiveThreads: this.live.size,
      lastStartMs: this.lastStartMs,
    };
  }

  /**
   * Stops the idle spare and starts no other. A spare still starting is let finish first (up to
   * CLOSE_WAIT_MS): stopping a thread while ONNX Runtime's binding initializes in it is not
   * shown to be safe, and the wait is at most one start.
   */
  async close(): Promise<void> {
    this.isClosed = true;
    this.holdOff();
    const spare = this.spare;
    this.spare = null;
    // Its listeners stay until it exits: an error event with no listener would throw here.
    if (!spare) return;
    let timer: NodeJS.Timeout | undefined;
    const isSettled = await Promise.race([
      spare.settled.then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), CLOSE_WAIT_MS))),
    ]);
    clearTimeout(timer);
    if (!isSettled)
      this.log.warn('slots', `the spare slot worker did not start in ${CLOSE_WAIT_MS} ms; stopped`);
    await spare.worker.terminate();
  }

  private startThread(): Worker {
    const worker = this.spawn();
    this.numStarted += 1;
    this.live.add(worker);
    worker.once('exit', () => this.live.delete(worker));
    return worker;
  }

  private startSpare(): Spare {
    const startedAt = performance.now();
    const worker = this.startThread();
    // An idle spare alone must not keep the process alive (a CLI that never closes its runtime).
    worker.unref();
    let failure: string | null = null;
    let settle = () => {};
    const settled = new Promise<void>((resolve) => (settle = resolve));
    const spare: Spare = { worker, isReady: false, settled, detach: () => {} };
    const onMessage = (envelope: Envelope<WorkerMessage>) => {
      if (envelope.jobId !== NOTICE_JOB_ID || envelope.body.type !== 'ready') return;
      spare.isReady = true;
      this.numFailedInARow = 0;
      this.lastStartMs = performance.now() - startedAt;
      settle();
    };
    const onError = (error: Error) => void (failure ??= error.message);
    const onExit = (code: number) => {
      settle();
      if (this.spare !== spare) return;
      this.spare = null;
      this.numFailedInARow += 1;
      const isGivenUp = this.numFailedInARow >= MAX_FAILED_STARTS;
      this.log.warn(
        'slots',
        `the spare slot worker exited before it was needed (${failure ?? `code ${code}`}); ${
          isGivenUp
            ? `no spare after ${this.numFailedInARow} such exits: each load starts its own worker`
            : 'starting another'
        }`,
      );
      this.refill();
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    spare.detach = () => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    return spare;
  }
}

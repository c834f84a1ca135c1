import { TRACE_LIMITS } from '../limits';
import { ServiceFailure } from './contract/result';

/** How much trace may be imported at once, and how many imports may wait for room. */
export interface ImportBudgetLimits {
  /** Bytes of trace files being imported at once (a larger file runs alone). */
  maxBytesInFlight: number;
  /** Imports waiting for room; one more is refused at once. */
  maxWaiting: number;
}

/**
 * The one budget every trace import of a core runs under (the upload route, `traces.import`,
 * the Traces view): imports run while the bytes of their files fit in `maxBytesInFlight`, the
 * rest wait in arrival order, and past `maxWaiting` waiting an import is refused (`queue_full`,
 * HTTP 429) before a byte of it is read. An import's worker holds about ten times its file while
 * it runs, so this bounds the memory imports take together; it is returned when each finishes.
 */
export class ImportBudget {
  private numBytesRunning = 0;
  private numRunning = 0;
  private readonly waiting: { numBytes: number; start(): void }[] = [];

  constructor(
    private readonly limits: ImportBudgetLimits = {
      maxBytesInFlight: TRACE_LIMITS.maxBytesInFlight,
      maxWaiting: TRACE_LIMITS.maxImportsWaiting,
    },
  ) {}

  /** Imports running and waiting, and the bytes of the running ones. */
  get stats(): { numRunning: number; numWaiting: number; numBytesRunning: number } {
    return {
      numRunning: this.numRunning,
      numWaiting: this.waiting.length,
      numBytesRunning: this.numBytesRunning,
    };
  }

  /**
   * Runs `job` once a file of `numBytes` (null: unknown, counted as the largest allowed) fits,
   * and gives its room back when it settles. Throws ServiceFailure `queue_full` when too many wait.
   */
  async run<T>(numBytes: number | null, job: () => Promise<T>): Promise<T> {
    const counted = Math.min(numBytes ?? TRACE_LIMITS.maxFileBytes, this.limits.maxBytesInFlight);
    await this.admit(counted);
    try {
      return await job();
    } finally {
      this.numBytesRunning -= counted;
      this.numRunning--;
      this.startWaiting();
    }
  }

  private admit(numBytes: number): Promise<void> {
    if (this.waiting.length === 0 && this.fits(numBytes)) return Promise.resolve(this.take(numBytes));
    if (this.waiting.length >= this.limits.maxWaiting)
      throw new ServiceFailure(
        'queue_full',
        `${this.numRunning + this.waiting.length} trace imports are running or waiting (at most ${mb(this.limits.maxBytesInFlight)} of trace files are imported at once); try again when one has finished`,
      );
    return new Promise((resolve) =>
      this.waiting.push({ numBytes, start: () => resolve(this.take(numBytes)) }),
    );
  }

  /** Starts waiting imports in arrival order while the first of them fits. */
  private startWaiting(): void {
    while (this.waiting.length > 0 && this.fits(this.waiting[0]!.numBytes)) this.waiting.shift()!.start();
  }

  /** Room for `numBytes`; an import always fits when nothing runs (a file over the budget runs alone). */
  private fits(numBytes: number): boolean {
    return this.numRunning === 0 || this.numBytesRunning + numBytes <= this.limits.maxBytesInFlight;
  }

  private take(numBytes: number): void {
    this.numBytesRunning += numBytes;
    this.numRunning++;
  }
}

function mb(bytes: number): string {
  return `${Math.round(bytes / 1_048_576)} MB`;
}

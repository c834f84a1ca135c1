import type { QueueSummary } from '../../runtime/runtime-summary';

/** Weight of the newest request in the moving mean of request durations. */
const EWMA_WEIGHT = 0.2;
const MAX_RETRY_AFTER_S = 60;

/**
 * The `Retry-After` of a 429: about how long the requests ahead of a retry need, i.e. the
 * queue divided over the seats times a moving mean of recent request durations, in whole
 * seconds from 1 to 60. Only a hint: clients may retry sooner and be refused again.
 */
export class RetryAfterEstimate {
  private meanE2eMs = 1000;

  /** Feeds one finished request's end-to-end duration (ms). */
  observe(e2eMs: number): void {
    if (Number.isFinite(e2eMs) && e2eMs >= 0) this.meanE2eMs += EWMA_WEIGHT * (e2eMs - this.meanE2eMs);
  }

  /** Seconds to wait behind `queue`. */
  secondsFor(queue: QueueSummary): number {
    const rounds = (queue.numWaiting + 1) / Math.max(1, queue.numSeats);
    const seconds = Math.ceil((rounds * this.meanE2eMs) / 1000);
    return Math.min(MAX_RETRY_AFTER_S, Math.max(1, seconds));
  }
}

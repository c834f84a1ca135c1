import type { WriteProblem } from './errors';
import { DISK_FULL } from './errors';

/**
 * How history writing is going: `ok`, or degraded — `busy` (another process holds the write
 * lock) or `full` (no room on disk) — with the reason and how much waits in memory meanwhile.
 * Degraded is not off: nothing acknowledged is dropped, it is written when the disk lets it.
 */
export type HistoryHealth =
  { state: 'ok' } | { state: 'busy' | 'full'; reason: string; sinceWallMs: number; numWaiting: number };

/** Tracks one writer's health: the first degraded moment and the latest reason. */
export class HealthTracker {
  private degraded: { state: 'busy' | 'full'; reason: string; sinceWallMs: number } | null = null;

  constructor(private readonly numWaiting: () => number) {}

  /** A write was refused for a reason a retry can cure. */
  refused(problem: Extract<WriteProblem, 'busy' | 'full'>, error: unknown): void {
    const reason = describeProblem(problem, error);
    if (this.degraded?.state === problem) this.degraded.reason = reason;
    else this.degraded = { state: problem, reason, sinceWallMs: Date.now() };
  }

  /** A write went through: whatever was degraded is healthy again. */
  recovered(): void {
    this.degraded = null;
  }

  get health(): HistoryHealth {
    return this.degraded ? { ...this.degraded, numWaiting: this.numWaiting() } : { state: 'ok' };
  }
}

/** The worse of two healths (full before busy before ok), waiting counts summed. */
export function worseHealth(a: HistoryHealth, b: HistoryHealth): HistoryHealth {
  if (a.state === 'ok') return b;
  if (b.state === 'ok') return a;
  const worst = a.state === 'full' || b.state !== 'full' ? a : b;
  return { ...worst, numWaiting: a.numWaiting + b.numWaiting };
}

/** One line for the status: `degraded: busy: …; 12 writes waiting in memory, retrying`. */
export function describeHealth(health: HistoryHealth): string | null {
  if (health.state === 'ok') return null;
  return `degraded: ${health.state}: ${health.reason}; ${health.numWaiting} write(s) waiting in memory, retrying`;
}

function describeProblem(problem: 'busy' | 'full', error: unknown): string {
  const detail = error instanceof Error ? error.message : String(error);
  return problem === 'busy'
    ? `another process holds the history database's write lock (${detail})`
    : `${DISK_FULL} (${detail})`;
}

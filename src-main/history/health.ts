import type { WriteProblem } from './errors';
import { DISK_FULL } from './errors';

/**
 * How history writing is going: `ok`, or degraded — `busy` (another process holds the write
 * lock), `full` (no room on disk) or `damaged` (the file failed its check at start: what the user
 * should do is in the reason) — with the reason and how much waits in memory meanwhile.
 * Degraded is not off: nothing acknowledged is dropped, it is written when the disk lets it.
 */
export type HistoryHealth =
  { state: 'ok' } | { state: DegradedState; reason: string; sinceWallMs: number; numWaiting: number };

/** The ways history can be degraded, worst first. */
export type DegradedState = 'damaged' | 'full' | 'busy';
const WORST_FIRST: readonly DegradedState[] = ['damaged', 'full', 'busy'];

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

/** The worse of two healths (damaged before full before busy before ok), waiting counts summed. */
export function worseHealth(a: HistoryHealth, b: HistoryHealth): HistoryHealth {
  if (a.state === 'ok') return b;
  if (b.state === 'ok') return a;
  const worst = WORST_FIRST.indexOf(a.state) <= WORST_FIRST.indexOf(b.state) ? a : b;
  return { ...worst, numWaiting: a.numWaiting + b.numWaiting };
}

/** One line for the status: `degraded: busy: …; 12 writes waiting in memory, retrying`. */
export function describeHealth(health: HistoryHealth): string | null {
  if (health.state === 'ok') return null;
  const waiting =
    health.state !== 'damaged' || health.numWaiting > 0
      ? `; ${health.numWaiting} write(s) waiting in memory, retrying`
      : '';
  return `degraded: ${health.state}: ${health.reason}${waiting}`;
}

/** The health of a file `damageOf` found damaged at start, with what the user should do. */
export function damagedHealth(path: string, damage: string): HistoryHealth {
  return {
    state: 'damaged',
    reason:
      `the history database is damaged in places (quick_check at start: ${damage}); history is still kept, ` +
      'but entries stored where it is damaged may not load, and a write that reaches the damage turns history off. ' +
      `The way out: quit the app, move ${path} aside and start again (a fresh history is created; ` +
      '`sqlite3 <old file> .recover` salvages what it can from the old one)',
    sinceWallMs: Date.now(),
    numWaiting: 0,
  };
}

function describeProblem(problem: 'busy' | 'full', error: unknown): string {
  const detail = error instanceof Error ? error.message : String(error);
  return problem === 'busy'
    ? `another process holds the history database's write lock (${detail})`
    : `${DISK_FULL} (${detail})`;
}

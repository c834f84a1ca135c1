import type { Timeline } from '../timeline/schema';
import { buildReport } from './build-report';
import type { LatencyReport, ReportOptions } from './types';

/** Default live window: the last 10,000 finished timelines. */
export const DEFAULT_WINDOW_CAPACITY = 10_000;

/**
 * A bounded window of finished timelines (ring buffer): the runtime pushes each timeline as it
 * finishes, in O(1) with no allocation; the oldest drops out once `capacity` is reached.
 */
export class TimelineWindow {
  private readonly ring: (Timeline | undefined)[];
  private next = 0;
  private count = 0;
  private pushed = 0;

  constructor(readonly capacity = DEFAULT_WINDOW_CAPACITY) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`window capacity must be a positive integer, got ${capacity}`);
    this.ring = new Array<Timeline | undefined>(capacity);
  }

  /** Timelines held now (≤ capacity). */
  get size(): number {
    return this.count;
  }

  /** Timelines ever pushed, including those that have dropped out. */
  get numPushed(): number {
    return this.pushed;
  }

  /** Adds a finished timeline, evicting the oldest when full. */
  push(timeline: Timeline): void {
    this.ring[this.next] = timeline;
    this.next = (this.next + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
    this.pushed++;
  }

  /** The held timelines, oldest first. */
  toArray(): Timeline[] {
    const out: Timeline[] = new Array<Timeline>(this.count);
    const start = (this.next - this.count + this.capacity) % this.capacity;
    for (let i = 0; i < this.count; i++) out[i] = this.ring[(start + i) % this.capacity]!;
    return out;
  }

  /** The report over the held timelines. */
  report(options: ReportOptions = {}): LatencyReport {
    return buildReport(this.toArray(), options);
  }

  /** Forgets every held timeline (the pushed count is kept). */
  clear(): void {
    this.ring.fill(undefined);
    this.next = 0;
    this.count = 0;
  }
}

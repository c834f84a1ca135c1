import type { Timeline } from '../timeline/schema';
import { buildReport } from './build-report';
import type { LatencyReport, ReportOptions } from './types';

/** Default live window: the last 10,000 finished timelines. */
export const DEFAULT_WINDOW_CAPACITY = 10_000;

/** What a client measured of one request, reported after its timeline was checked and pushed. */
export type ClientFigures = Pick<Timeline, 'clientTtftMs' | 'clientE2eMs'>;

/**
 * A bounded window of finished timelines (ring buffer): the runtime pushes each timeline as it
 * finishes, in O(1) with no allocation; the oldest drops out once `capacity` is reached. A
 * pushed timeline is never changed: a client's figures are kept as their own record beside it
 * and joined into a copy when read.
 */
export class TimelineWindow {
  private readonly ring: (Timeline | undefined)[];
  /** Client figures of the timeline at the same ring index (dropped out with it). */
  private readonly clientFigures: (ClientFigures | undefined)[];
  private next = 0;
  private count = 0;
  private pushed = 0;

  constructor(readonly capacity = DEFAULT_WINDOW_CAPACITY) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`window capacity must be a positive integer, got ${capacity}`);
    this.ring = new Array<Timeline | undefined>(capacity);
    this.clientFigures = new Array<ClientFigures | undefined>(capacity);
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
    this.clientFigures[this.next] = undefined;
    this.next = (this.next + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
    this.pushed++;
  }

  /** The held timelines, oldest first, each with its client's figures when reported. */
  toArray(): Timeline[] {
    const out: Timeline[] = new Array<Timeline>(this.count);
    const start = (this.next - this.count + this.capacity) % this.capacity;
    for (let i = 0; i < this.count; i++) out[i] = this.at((start + i) % this.capacity);
    return out;
  }

  /** The newest held timeline of a request (with its client's figures), or undefined. */
  latest(requestId: string): Timeline | undefined {
    const index = this.latestIndex(requestId);
    return index === null ? undefined : this.at(index);
  }

  /** Records a client's figures for the newest held timeline of a request; false when none is held. */
  addClientFigures(requestId: string, figures: ClientFigures): boolean {
    const index = this.latestIndex(requestId);
    if (index === null) return false;
    this.clientFigures[index] = { ...figures };
    return true;
  }

  private latestIndex(requestId: string): number | null {
    for (let i = 1; i <= this.count; i++) {
      const index = (this.next - i + this.capacity) % this.capacity;
      if (this.ring[index]!.requestId === requestId) return index;
    }
    return null;
  }

  /** The timeline at a ring index, joined with its client's figures into a copy when there are any. */
  private at(index: number): Timeline {
    const figures = this.clientFigures[index];
    return figures ? { ...this.ring[index]!, ...figures } : this.ring[index]!;
  }

  /** The report over the held timelines. */
  report(options: ReportOptions = {}): LatencyReport {
    return buildReport(this.toArray(), options);
  }

  /** Forgets every held timeline (the pushed count is kept). */
  clear(): void {
    this.ring.fill(undefined);
    this.clientFigures.fill(undefined);
    this.next = 0;
    this.count = 0;
  }
}

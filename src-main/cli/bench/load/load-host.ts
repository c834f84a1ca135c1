import type { RunConfig } from '../../../store';
import type { Timeline } from '../../../telemetry/timeline';
import type { Target } from './client';

/**
 * What the load lab drives and files results with: an in-process headless core+server, or a
 * server at `--url`. Only the in-process host can file runs and hand back server timelines.
 */
export interface LoadHost {
  target: Target;
  modelId: string;
  /** Where runs go, or why they do not (a sentence for the report). */
  storeNote: string;
  /** Files a run for one phase; null when this host cannot. */
  createRun(name: string, config: RunConfig): string | null;
  /** Attaches a client TTFT to its server timeline (best effort; never throws). */
  reportClientTtft(requestId: string, clientTtftMs: number): Promise<void>;
  /** Server timelines of a run (in-process only). */
  timelinesOf(runId: string): Timeline[];
  /** Runtime facts for the run's config (seats, page size, revisions), when known. */
  runtimeFacts(): Partial<RunConfig>;
  close(): Promise<void>;
}

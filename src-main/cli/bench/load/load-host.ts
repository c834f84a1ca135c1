import type { RunConfig } from '../../../store';
import type { Timeline } from '../../../telemetry/timeline';
import type { Target } from './client';

/** One request as the client measured it: durations, and its send instant on the client's clock. */
export interface ClientFigures {
  clientTtftMs: number;
  clientE2eMs: number;
  sentAt: number;
}

/**
 * What the load lab drives and files results with: an in-process headless core+server, or a
 * server at `--url`. Only the in-process host can file runs and hand back server timelines.
 */
export interface LoadHost {
  target: Target;
  modelId: string;
  /** Where runs go, or why they do not (a sentence for the report). */
  storeNote: string;
  /**
   * Opens a run for one phase: the id its requests are tagged with. `isStored` says whether it
   * is also filed in the history (null: this host cannot tag requests at all).
   */
  createRun(name: string, config: RunConfig): { runId: string; isStored: boolean } | null;
  /**
   * Attaches what the client measured to its server timeline (best effort; never throws): TTFT
   * and E2E as durations, and — when the server shares the client's clock (in-process) — the
   * inbound network time from the client's send instant.
   */
  reportClient(requestId: string, seen: ClientFigures): Promise<void>;
  /** Server timelines of a run (in-process only). */
  timelinesOf(runId: string): Timeline[];
  /** Runtime facts for the run's config (seats, page size, revisions), when known. */
  runtimeFacts(): Partial<RunConfig>;
  close(): Promise<void>;
}

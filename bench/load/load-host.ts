import type { RunConfig } from '../../src-main/history/queries/runs';
import type { ClientSeenAt } from '../../src-main/telemetry/timeline/derive';
import type { Timeline } from '../../src-main/telemetry/timeline/schema';
import type { KnownEngine } from '../../src-main/runtime/remote/endpoint-input';
import type { RunServerPhases } from '../../src-main/runtime/remote/vllm-metrics';
import type { Target } from './client';
import type { RequestRecord } from './driver';

/** What a host adds to a phase's report: vLLM's run-level server phases, a failed scrape's reason, or null. */
export interface PhaseExtras {
  serverPhases: RunServerPhases | { error: string } | null;
}

/**
 * What the load lab drives and files results with: an in-process headless core+server, or a
 * server at `--url`. Only the in-process host can file runs and hand back server timelines.
 */
export interface LoadHost {
  target: Target;
  modelId: string;
  /**
   * A remote engine: where, which engine, whether it takes `ignore_eos`, whether chats go to
   * Ollama's native API (null in-process).
   */
  remote: { baseUrl: string; engine: KnownEngine; isExtended: boolean; isOllamaNative: boolean } | null;
  /** Where runs go, or why they do not (a sentence for the report). */
  storeNote: string;
  /**
   * Opens a run for one phase: the id its requests are tagged with. `isStored` says whether it
   * is also filed in the history (null: this host cannot tag requests at all).
   */
  createRun(name: string, config: RunConfig): { runId: string; isStored: boolean } | null;
  /**
   * Attaches what the client stamped (its send, first and last content, on its own clock) to
   * its server timeline (best effort; never throws): TTFT and E2E as durations, and — when the
   * server shares the client's clock (in-process) — the inbound network time.
   */
  reportClient(requestId: string, seen: ClientSeenAt): Promise<void>;
  /** Before a measured phase (a vLLM server's `/metrics` is scraped). */
  beforePhase(): Promise<void>;
  /**
   * After a measured phase: what only this host can add. A remote engine's timelines are built
   * and filed here from the client's records; vLLM's run-level phases come back (or why not).
   */
  afterPhase(runId: string | null, records: readonly RequestRecord[]): Promise<PhaseExtras>;
  /** The timelines of a run: the server's own in-process, the client-boundary ones of a remote engine. */
  timelinesOf(runId: string): Timeline[];
  /** Runtime facts for the run's config (seats, page size, revisions), when known. */
  runtimeFacts(): Partial<RunConfig>;
  close(): Promise<void>;
}

import type { PushedEvent } from '../../src-main/service/contract/events';
import type { MethodInput, MethodName, MethodOutput } from '../../src-main/service/contract/methods';
import type { Result } from '../../src-main/service/contract/result';
import type { ExportFormat } from '../../src-main/telemetry/trace/export-formats';

/**
 * Receives pushed events in batches, with the instant the batch reached the renderer on the
 * renderer's own clock (`performance.now()`): the client-side stamp of a first chunk.
 */
export type EventBatchListener = (events: PushedEvent[], receivedAt: number) => void;

/** Whether the event feed is live (the UI says so when it is not). */
export type ConnectionState = 'connecting' | 'open' | 'lost';

/**
 * The renderer's one door to the service: IPC through the preload inside Electron, HTTP +
 * server-sent events in a browser. Every answer and event is validated against the contract.
 */
export interface Bridge {
  readonly kind: 'ipc' | 'http';
  /** Calls a service method; never throws (transport failures are `unavailable` errors). */
  call<M extends MethodName>(method: M, input: MethodInput<M>): Promise<Result<MethodOutput<M>>>;
  /** Subscribes to pushed events; returns unsubscribe. */
  subscribe(listener: EventBatchListener): () => void;
  /** Follows the event feed's health; returns unsubscribe. */
  onConnection(listener: (state: ConnectionState) => void): () => void;
  /**
   * A URL the browser downloads an export of a run (null: the live window) from, or null where
   * exports are saved through the host's dialog instead (`runs.saveExport`).
   */
  exportUrl(format: ExportFormat, runId: string | null): string | null;
}

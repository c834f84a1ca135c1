import type { PushedEvent } from '../../../src-main/service/contract/events';
import type { MethodInput, MethodName, MethodOutput } from '../../../src-main/service/contract/methods';
import type { Result } from '../../../src-main/service/contract/result';
import type { Bridge, ConnectionState, EventBatchListener } from '../../../src-renderer/bridge/bridge';

type Answers = { [M in MethodName]?: (input: MethodInput<M>) => MethodOutput<M> | Promise<MethodOutput<M>> };

/**
 * A test double of the renderer's Bridge (unit tests only): answers calls from `answers`,
 * records them, and lets a test deliver event batches with a chosen arrival stamp.
 */
export class BridgeDouble implements Bridge {
  readonly kind = 'http' as const;
  readonly calls: { method: MethodName; input: unknown }[] = [];
  private readonly listeners = new Set<EventBatchListener>();

  constructor(private readonly answers: Answers) {}

  async call<M extends MethodName>(method: M, input: MethodInput<M>): Promise<Result<MethodOutput<M>>> {
    this.calls.push({ method, input });
    const answer = this.answers[method] as
      ((i: MethodInput<M>) => MethodOutput<M> | Promise<MethodOutput<M>>) | undefined;
    if (!answer) return { ok: false, error: { code: 'unavailable', message: `${method} not answered` } };
    return { ok: true, value: await answer(input) };
  }

  subscribe(listener: EventBatchListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private readonly connectionListeners = new Set<(state: ConnectionState) => void>();

  onConnection(listener: (state: ConnectionState) => void): () => void {
    this.connectionListeners.add(listener);
    listener('open');
    return () => this.connectionListeners.delete(listener);
  }

  /** Tells the stores the event feed is now `state` (a drop, then a reconnect). */
  setConnection(state: ConnectionState): void {
    for (const listener of this.connectionListeners) listener(state);
  }

  exportUrl(): string | null {
    return null;
  }

  /** Delivers one batch, stamped as received at `receivedAt` (renderer clock). */
  deliver(events: PushedEvent[], receivedAt = performance.now()): void {
    for (const listener of this.listeners) listener(events, receivedAt);
  }

  /** The inputs of every call to `method`. */
  inputsOf(method: MethodName): unknown[] {
    return this.calls.filter((c) => c.method === method).map((c) => c.input);
  }
}

import type { PushedEvent } from './events';
import type { MethodName, MethodOutput } from './methods';
import type { Result } from './result';

/**
 * The transport-free service every host exposes: IPC (Electron) and HTTP + SSE (headless)
 * both call `call` with the raw, untrusted input and forward `subscribe`'s events. `call`
 * validates input and output against the contract and never throws.
 */
export interface ServiceApi {
  call<M extends MethodName>(method: M, rawInput: unknown): Promise<Result<MethodOutput<M>>>;
  /** Every pushed event, unbatched; transports batch and throttle. Returns unsubscribe. */
  subscribe(listener: (event: PushedEvent) => void): () => void;
}

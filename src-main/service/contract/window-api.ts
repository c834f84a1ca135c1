import type { PushedEvent } from './events';
import type { MethodInput, MethodName, MethodOutput } from './methods';
import type { Result } from './result';

// Types only: the sandboxed preload imports this file and must bundle no zod.

/** One method as the page calls it; input may be omitted where every field is optional. */
export type MethodFunction<M extends MethodName> = (
  input?: MethodInput<M>,
) => Promise<Result<MethodOutput<M>>>;

/**
 * What the preload puts on `window.firstFrame` (declared once for the preload and the page):
 * one named function per contract method, event batches with unsubscribe, and the platform.
 * The page re-validates every result and event it receives.
 */
export interface FirstFrameApi {
  methods: { [M in MethodName]: MethodFunction<M> };
  /** Receives event batches (oldest first); returns unsubscribe (idempotent). */
  onEvents(listener: (events: PushedEvent[]) => void): () => void;
  /** process.platform of the app (darwin, linux, win32). */
  platform: string;
}

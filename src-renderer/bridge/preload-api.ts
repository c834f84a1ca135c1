import type { MethodInput, MethodName, PushedEvent, Result } from '../../src-main/service/contract';

/**
 * What the preload exposes as `window.firstFrame` (agreed with the Electron shell): one named
 * function per contract method, event batches with unsubscribe, and the platform name. Results
 * are typed `unknown` on purpose: the bridge validates them before anything reads them.
 */
export interface PreloadApi {
  methods: { [M in MethodName]: (input: MethodInput<M>) => Promise<Result<unknown>> };
  onEvents(listener: (events: PushedEvent[]) => void): () => void;
  platform: string;
}

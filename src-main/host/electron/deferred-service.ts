import type { MethodName, MethodOutput } from '../../service/contract/methods';
import type { Result } from '../../service/contract/result';
import { failure } from '../../service/contract/result';
import type { ServiceApi } from '../../service/contract/service-api';

// A ServiceApi that exists before the core does, so the window and the IPC handlers can be up
// while the core still scans models and opens the database. Calls wait for the core; events
// flow once it is there; a core that failed to start answers every call `unavailable`.

interface Subscription {
  listener: Parameters<ServiceApi['subscribe']>[0];
  unsubscribe: (() => void) | null;
  isActive: boolean;
}

/** Wraps the promise of a service in a service; `ready` rejecting is reported per call, never thrown. */
export function deferService(ready: Promise<ServiceApi>): ServiceApi {
  let service: ServiceApi | null = null;
  const subscriptions = new Set<Subscription>();
  const settled = ready.then(
    (resolved) => {
      service = resolved;
      for (const sub of subscriptions) if (sub.isActive) sub.unsubscribe = resolved.subscribe(sub.listener);
      return resolved;
    },
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );
  return {
    async call<M extends MethodName>(method: M, rawInput: unknown): Promise<Result<MethodOutput<M>>> {
      const outcome = await settled;
      if (typeof outcome === 'string') return failure('unavailable', `the service did not start: ${outcome}`);
      return outcome.call(method, rawInput);
    },
    subscribe(listener) {
      const sub: Subscription = { listener, unsubscribe: null, isActive: true };
      subscriptions.add(sub);
      if (service !== null) sub.unsubscribe = service.subscribe(listener);
      return () => {
        sub.isActive = false;
        subscriptions.delete(sub);
        sub.unsubscribe?.();
      };
    },
  };
}

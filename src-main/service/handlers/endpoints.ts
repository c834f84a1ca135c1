import { EndpointUnreachable, remoteRef } from '../../runtime/remote/endpoints';
import type { EndpointState } from '../../runtime/remote/endpoints';
import { ServiceFailure } from '../contract/result';
import type { EndpointSnapshot } from '../contract/endpoint-schemas';
import type { CoreDeps } from '../core-deps';
import type { Handlers } from '../service';

type EndpointHandlers = Pick<
  Handlers,
  'endpoints.list' | 'endpoints.add' | 'endpoints.remove' | 'endpoints.check'
>;

/** An endpoint as Slots and the picker show it (never its key). */
export function toEndpointSnapshot(e: EndpointState): EndpointSnapshot {
  return {
    endpointId: e.endpointId,
    name: e.name,
    baseUrl: e.baseUrl,
    engine: e.engine,
    resolvedEngine: e.resolvedEngine,
    hasKey: e.hasKey,
    reachability: e.reachability,
    models: e.models.map((m) => ({
      modelId: remoteRef(e.endpointId, m.modelId),
      serverModelId: m.modelId,
      displayName: `${m.modelId} · ${e.name}`,
    })),
    lastError: e.lastError,
    checkedWallMs: e.checkedWallMs,
    checkLatencyMs: e.checkLatencyMs,
  };
}

/** Remote endpoints: list, add (validated, key stored apart), remove, check reachability. */
export function endpointHandlers(deps: CoreDeps): EndpointHandlers {
  const endpoints = deps.remote.endpoints;
  return {
    'endpoints.list': () => endpoints.list().map(toEndpointSnapshot),
    'endpoints.add': async ({ saveUnreachable, ...input }) => {
      // Input was validated by the contract; what can fail here is the check before saving, or saving (a broken endpoints file, a full disk).
      try {
        return toEndpointSnapshot(await endpoints.add(input, { saveUnreachable: saveUnreachable === true }));
      } catch (error) {
        if (error instanceof EndpointUnreachable)
          throw new ServiceFailure(
            'unavailable',
            `Nothing was saved: ${error.baseUrl} failed its check (${error.reason}). Check the address and key, or save it anyway to check it later.`,
          );
        throw new ServiceFailure('unavailable', (error as Error).message);
      }
    },
    'endpoints.remove': ({ endpointId }) => ({ isRemoved: endpoints.remove(endpointId) }),
    'endpoints.check': async ({ endpointId }) => {
      if (endpointId === undefined) return (await endpoints.checkAll()).map(toEndpointSnapshot);
      if (!endpoints.get(endpointId)) throw new ServiceFailure('not_found', `no endpoint "${endpointId}"`);
      return [toEndpointSnapshot(await endpoints.check(endpointId))];
    },
  };
}

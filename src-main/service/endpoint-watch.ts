import type { CoreDeps } from './core-deps';
import { toEndpointSnapshot } from './handlers/endpoints';

/** How often every remote endpoint's /v1/models is asked again while the app runs (ms). */
export const ENDPOINT_RECHECK_MS = 60_000;

/**
 * Checks every remote endpoint at start and then every ENDPOINT_RECHECK_MS, and tells the
 * clients what each check found (`endpoints.checked`), so a card never stays "unreachable"
 * after its server came back, nor "reachable" after it went away. Returns the stop function.
 */
export function watchEndpoints(deps: Pick<CoreDeps, 'remote' | 'hub'>): () => void {
  let isStopped = false;
  const checkAll = async () => {
    // checkAll never throws: a failed check is that endpoint's last error.
    const states = await deps.remote.endpoints.checkAll();
    if (!isStopped && states.length > 0)
      deps.hub.emit('endpoints.checked', { endpoints: states.map(toEndpointSnapshot) });
  };
  void checkAll();
  const timer = setInterval(() => void checkAll(), ENDPOINT_RECHECK_MS);
  timer.unref();
  return () => {
    isStopped = true;
    clearInterval(timer);
  };
}

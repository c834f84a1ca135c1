import { z } from 'zod';
import { MODEL_SOURCE_LABELS } from '../../runtime/model/model-sources';
import type { Runtime } from '../../runtime/runtime';
import type { History } from '../../history/history';
import type { DiscoveryState } from '../contract/model-schemas';
import type { CoreDeps } from '../core-deps';
import type { Handlers } from '../service';

type DiscoveryHandlers = Pick<Handlers, 'models.discovery' | 'models.setDiscovery'>;

/** The preference key the discovery choice is kept under. */
const PREFERENCE_KEY = 'modelDiscovery';
const KeptSchema = z.object({ isEnabled: z.boolean() });

/** Discovery of other programs' models: its state, and turning it on or off (kept across restarts). */
export function discoveryHandlers(deps: CoreDeps): DiscoveryHandlers {
  const { runtime, history } = deps;
  return {
    'models.discovery': () => discoveryState(runtime, history),
    'models.setDiscovery': async ({ isEnabled }) => {
      await runtime.setDiscovery(isEnabled);
      history.preferences.write(PREFERENCE_KEY, { isEnabled });
      return discoveryState(runtime, history);
    },
  };
}

/** Whether the kept choice turns discovery on (false when never chosen or unreadable). */
export function keptDiscovery(history: History): boolean {
  const parsed = KeptSchema.safeParse(history.preferences.read(PREFERENCE_KEY));
  return parsed.success && parsed.data.isEnabled;
}

function discoveryState(runtime: Runtime, history: History): DiscoveryState {
  return {
    isEnabled: runtime.options.discovery.isEnabled,
    isPersistent: history.isPersistent,
    places: runtime
      .discoveryPlaces()
      .map((place) => ({ ...place, label: MODEL_SOURCE_LABELS[place.source] })),
  };
}

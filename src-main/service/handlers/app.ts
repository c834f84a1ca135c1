import path from 'node:path';
import { ServiceFailure } from '../contract/result';
import { DEFAULT_UI_PREFERENCES, UiPreferencesSchema } from '../contract/ui-schemas';
import type { UiPreferences } from '../contract/ui-schemas';
import type { CoreDeps } from '../core-deps';
import type { Handlers } from '../service';

type AppHandlers = Pick<Handlers, 'app.openModelsFolder' | 'ui.preferences' | 'ui.setPreferences'>;

/** The chat settings key the UI preferences are kept under (in memory too while history is off). */
const PREFERENCES_KEY = 'ui.preferences';

/** The user's models folder: where dropped model folders are listed from. */
export function modelsDirOf(deps: Pick<CoreDeps, 'dataDir'>): string {
  return path.resolve(deps.dataDir, 'models');
}

/** Opening the models folder (desktop) and the profile's look: Simple/Expert and theme. */
export function appHandlers(deps: CoreDeps): AppHandlers {
  const read = (): UiPreferences => {
    const parsed = UiPreferencesSchema.partial().safeParse(deps.chats.getSetting(PREFERENCES_KEY));
    return { ...DEFAULT_UI_PREFERENCES, ...(parsed.success ? parsed.data : {}) };
  };
  return {
    'app.openModelsFolder': async () => {
      const dir = modelsDirOf(deps);
      if (!deps.openFolder)
        throw new ServiceFailure(
          'unavailable',
          'this host cannot open folders (a browser may be on another machine): copy the path instead',
        );
      const problem = await deps.openFolder(dir);
      if (problem) throw new ServiceFailure('unavailable', `could not open ${dir}: ${problem}`);
      return { path: dir };
    },
    'ui.preferences': read,
    'ui.setPreferences': (patch) => {
      const next = { ...read(), ...patch };
      deps.chats.putSetting(PREFERENCES_KEY, next);
      return next;
    },
  };
}

import { ZodError } from 'zod';
import { SettingsRefused } from '../../runtime/applied-settings';
import { CPU_PROVIDER, EXECUTION_PROVIDERS } from '../../runtime/slot-worker/providers';
import { isRefTo } from '../../runtime/model/variant-names';
import { loadMsOf } from '../../runtime/slots/slot';
import { describeSettingsError } from '../../runtime/settings/controls';
import { SETTING_KEYS } from '../../runtime/settings/declaration';
import {
  DEFAULT_SETTINGS,
  SettingsPatchSchema,
  StoredSettingsSchema,
  mergeSettings,
} from '../../runtime/settings/schema';
import type { ProviderAvailability } from '../../runtime/slot-worker/providers';
import type { RuntimeSettings, SettingsPatch } from '../../runtime/settings/schema';
import type { History } from '../../history/history';
import { ServiceFailure, describeIssues } from '../contract/result';
import type { CoreDeps } from '../core-deps';
import type { Handlers } from '../service';

type SettingsHandlers = Pick<Handlers, 'settings.get' | 'settings.apply'>;

/** The preference key the runtime settings are kept under. */
const PREFERENCE_KEY = 'runtime';

/** The runtime settings and their cost now; applying a change and keeping it across restarts. */
export function settingsHandlers(deps: CoreDeps): SettingsHandlers {
  const { runtime, history } = deps;
  const checkProviders = onceAnnounced(deps);
  return {
    'settings.get': async () => {
      const checked = runtime.providersIfChecked() ?? (await checkProviders());
      const summary = runtime.pageSummary();
      return {
        settings: runtime.settings,
        defaults: DEFAULT_SETTINGS,
        busyReason: runtime.busyReason(),
        slots: runtime.slots().map((slot) => ({
          slotId: slot.slotId,
          modelId: slot.model.modelId,
          status: slot.status,
          lastLoadMs: loadMsOf(slot),
        })),
        numCachedPages: summary.numPages,
        cachedPageBytes: summary.bytes,
        isPersistent: history.isPersistent,
        providers: checked ?? UNCHECKED_PROVIDERS,
        areProvidersChecked: checked !== null,
      };
    },
    'settings.apply': async (input) => {
      const parsed = SettingsPatchSchema.safeParse(input.patch);
      if (!parsed.success) throw new ServiceFailure('invalid_input', describeSettingsError(parsed.error));
      const patch = parsed.data as SettingsPatch;
      if (patch.defaultModel) refuseUnknownModel(runtime, patch.defaultModel);
      try {
        const applied = await runtime.reconfigure(patch);
        if (applied.changed.length > 0) saveSettings(history, applied.settings);
        return applied;
      } catch (error) {
        if (error instanceof ZodError)
          throw new ServiceFailure('invalid_input', describeSettingsError(error));
        if (error instanceof SettingsRefused) throw new ServiceFailure('unavailable', error.message);
        throw error;
      }
    },
  };
}

/** How long Settings waits for the one-time provider probe before answering without it (ms). */
const PROBE_WAIT_MS = 300;

/** What Settings offers while the probe runs: the bundled cpu, the others being checked. */
const UNCHECKED_PROVIDERS = EXECUTION_PROVIDERS.map((provider) => ({
  provider,
  isAvailable: provider === CPU_PROVIDER.provider,
  reason: provider === CPU_PROVIDER.provider ? null : 'being checked',
}));

/**
 * Starts the provider probe (once per start: the runtime keeps its answer) and waits for it
 * briefly; null when it has not answered yet. Its answer goes to every client as
 * `providers.checked` when it comes, so an open Settings updates by itself.
 */
function onceAnnounced(deps: CoreDeps): () => Promise<ProviderAvailability[] | null> {
  let isStarted = false;
  return async () => {
    const probe = deps.runtime.providers();
    if (!isStarted) void probe.then((providers) => deps.hub.emit('providers.checked', { providers }));
    isStarted = true;
    const pending = new Promise<null>((resolve) => setTimeout(() => resolve(null), PROBE_WAIT_MS).unref());
    return Promise.race([probe, pending]);
  };
}

/**
 * A default model must be one that loads here (`name` or `name:variant`): a name that matches
 * nothing would be reported applied while every chat ignored it.
 */
function refuseUnknownModel(runtime: CoreDeps['runtime'], ref: string): void {
  const usable = runtime.models().filter((m) => m.status === 'ok');
  if (usable.some((m) => isRefTo(m, ref) || m.name === ref)) return;
  const known = usable.map((m) => m.modelId).join(', ');
  throw new ServiceFailure(
    'invalid_input',
    `No model "${ref}" is installed here${known ? `; the models that load are ${known}` : ''}.`,
  );
}

/** Keeps the settings that differ from the defaults, so later default changes still reach the user. */
function saveSettings(history: History, settings: RuntimeSettings): void {
  const changed = Object.fromEntries(
    SETTING_KEYS.filter((k) => settings[k] !== DEFAULT_SETTINGS[k]).map((k) => [k, settings[k]]),
  );
  history.preferences.write(PREFERENCE_KEY, changed);
}

/**
 * The settings kept from an earlier session, or an empty patch (with the reason in `problem`)
 * when none were kept or they no longer validate: the app then starts on the defaults.
 */
export function storedSettings(history: History): { patch: SettingsPatch; problem: string | null } {
  const raw = history.preferences.read(PREFERENCE_KEY);
  if (raw === null) return { patch: {}, problem: null };
  const parsed = StoredSettingsSchema.safeParse(raw);
  if (!parsed.success)
    return { patch: {}, problem: `kept settings ignored: ${describeIssues(parsed.error)}` };
  const known = Object.fromEntries(
    SETTING_KEYS.filter((k) => k in parsed.data).map((k) => [k, parsed.data[k]]),
  );
  try {
    mergeSettings(DEFAULT_SETTINGS, known);
    return { patch: known as SettingsPatch, problem: null };
  } catch (error) {
    return { patch: {}, problem: `kept settings ignored: ${describeIssues(error as ZodError)}` };
  }
}

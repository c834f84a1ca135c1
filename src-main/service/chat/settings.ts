import { z } from 'zod';
import type { Runtime } from '../../runtime/runtime';
import { DEFAULT_SAMPLING } from '../../runtime/sampling/sampler';
import type { ChatQueries } from '../../history/queries/chat-records';
import { ConversationSettingsSchema, SamplingPresetSchema } from '../contract/chat-schemas';
import type { ChatDefaults, ConversationSettings, SamplingPreset } from '../contract/chat-schemas';
import type { Sampling } from '../contract/schemas';

/** Settings a new chat starts with until the user saves defaults of their own. */
export const FACTORY_SETTINGS: ConversationSettings = {
  systemPrompt: '',
  modelId: null,
  sampling: {},
  contextOverflow: 'drop-oldest',
};

/**
 * What a chat samples with where its settings leave a field empty: a little randomness, so
 * Regenerate draws a different answer (each request without a seed gets a random one). The
 * runtime's own defaults (greedy) still serve `/v1` and the benches, which set their own.
 */
export const CHAT_SAMPLING_DEFAULTS = { temperature: 0.7, topP: 0.95 } as const;

/** Presets every install has; user presets are added beside them. */
export const BUILT_IN_PRESETS: readonly SamplingPreset[] = [
  { name: 'Deterministic', sampling: { temperature: 0 }, isBuiltIn: true },
  { name: 'Precise', sampling: { temperature: 0.3, topP: 0.9 }, isBuiltIn: true },
  { name: 'Balanced', sampling: { temperature: 0.7, topK: 40, topP: 0.95 }, isBuiltIn: true },
  { name: 'Creative', sampling: { temperature: 1.1, topK: 100, topP: 0.98 }, isBuiltIn: true },
];

const DEFAULTS_KEY = 'chat.defaults';
const PRESETS_KEY = 'chat.presets';

/** Stored settings JSON as settings: unknown or invalid fields fall back to the defaults. */
export function readSettings(stored: unknown, fallback: ConversationSettings): ConversationSettings {
  const parsed = ConversationSettingsSchema.partial().safeParse(stored);
  return parsed.success ? { ...fallback, ...stripUndefined(parsed.data) } : fallback;
}

/** The defaults for new chats (saved by the user, else the factory ones). */
export function defaultSettings(chats: ChatQueries): ConversationSettings {
  return readSettings(chats.getSetting(DEFAULTS_KEY), FACTORY_SETTINGS);
}

/** What the chat settings panel shows: defaults, the runtime's effective values, the presets. */
export function chatDefaults(chats: ChatQueries, runtime: Runtime): ChatDefaults {
  return {
    settings: defaultSettings(chats),
    effective: {
      ...DEFAULT_SAMPLING,
      ...CHAT_SAMPLING_DEFAULTS,
      maxTokens: runtime.options.defaultMaxTokens,
    },
    presets: [...BUILT_IN_PRESETS, ...userPresets(chats)],
  };
}

/** A turn's sampling: the chat defaults under the conversation's (or this send's) own fields. */
export function chatSampling(sampling: Sampling): Sampling {
  return { ...CHAT_SAMPLING_DEFAULTS, ...sampling };
}

/** Saves the defaults new chats start with. */
export function saveDefaults(chats: ChatQueries, settings: ConversationSettings): void {
  chats.putSetting(DEFAULTS_KEY, settings);
}

/** Saves (or, with null sampling, deletes) a user preset; a built-in name cannot be replaced. */
export function savePreset(chats: ChatQueries, name: string, sampling: Sampling | null): string | null {
  if (BUILT_IN_PRESETS.some((p) => p.name.toLowerCase() === name.toLowerCase()))
    return `"${name}" is a built-in preset; choose another name`;
  const kept = userPresets(chats).filter((p) => p.name.toLowerCase() !== name.toLowerCase());
  chats.putSetting(PRESETS_KEY, sampling ? [...kept, { name, sampling, isBuiltIn: false }] : kept);
  return null;
}

function userPresets(chats: ChatQueries): SamplingPreset[] {
  const parsed = z.array(SamplingPresetSchema).safeParse(chats.getSetting(PRESETS_KEY));
  return parsed.success ? parsed.data.map((p) => ({ ...p, isBuiltIn: false })) : [];
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

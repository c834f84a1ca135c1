// No Node imports: the renderer's contract schemas import these names too.

/**
 * Where a model was found: shipped with the app, the user's models folder, or (only when the
 * user turns discovery on) another program's store on this machine, read in place.
 */
export const MODEL_SOURCES = ['bundled', 'models-folder', 'ollama', 'lm-studio', 'hf-cache'] as const;
/** See MODEL_SOURCES. */
export type ModelSource = (typeof MODEL_SOURCES)[number];

/** The sources discovery reads (other programs' stores); off until the user turns it on. */
export const DISCOVERED_SOURCES = ['ollama', 'lm-studio', 'hf-cache'] as const;
/** See DISCOVERED_SOURCES. */
export type DiscoveredSource = (typeof DISCOVERED_SOURCES)[number];

/** Each source in words, as the model picker writes it after the name (`llama3.2:3b · Ollama`). */
export const MODEL_SOURCE_LABELS: Record<ModelSource, string> = {
  bundled: 'bundled',
  'models-folder': 'models folder',
  ollama: 'Ollama',
  'lm-studio': 'LM Studio',
  'hf-cache': 'Hugging Face cache',
};

/** The prefix a discovered model's name gets when another model already has its name (`ollama/…`). */
export const SOURCE_PREFIXES: Record<DiscoveredSource, string> = {
  ollama: 'ollama',
  'lm-studio': 'lm-studio',
  'hf-cache': 'hf',
};

/** True for a model another program keeps (read in place, never written). */
export function isDiscoveredSource(source: ModelSource): source is DiscoveredSource {
  return (DISCOVERED_SOURCES as readonly string[]).includes(source);
}

/**
 * What a place held when discovery last read it: `off` (discovery is off, nothing read),
 * `found` (read; it may hold no models), `absent` (no such folder), `unreadable` (with the reason).
 */
export const PLACE_STATES = ['off', 'found', 'absent', 'unreadable'] as const;
/** See PLACE_STATES. */
export type PlaceStateName = (typeof PLACE_STATES)[number];

import { isRefTo } from '../runtime/model/variant-names';
import type { Runtime } from '../runtime/runtime';

/**
 * The weights a run is measured on, as its config records them: the model's id → the content
 * hash of its weights (`modelRevision`), so Compare can say whether two runs used the same
 * weights. Empty when the model is unknown or cannot load (nothing is claimed then).
 */
export function modelRevisionsOf(runtime: Runtime, modelId: string | null): Record<string, string> {
  if (modelId === null) return {};
  const entry = runtime.models().find((e) => isRefTo(e, modelId));
  return entry?.status === 'ok' ? { [entry.modelId]: entry.model.revisions.modelRevision } : {};
}

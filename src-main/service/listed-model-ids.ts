import { fileRefOf } from '../runtime/model/variant-names';
import type { RefTarget } from '../runtime/model/variant-names';
import type { RunRecord } from '../history/queries/runs';

/** Maps a recorded model id to the one the model list shows today (unknown ids unchanged). */
export type ListedIdOf = (modelId: string) => string;

/**
 * Old ids to today's: a variant's id from before ids named its weights (`ff-austen-mini:fp32`,
 * see fileRefOf) to the id the model list gives it now (`ff-austen-mini:fp16`). Stored runs
 * and timelines keep what they recorded; the screens read them through this, so an old run
 * and a new one on the same weights carry the same name. A model no longer listed keeps its id.
 */
export function listedIdsOf(targets: readonly RefTarget[]): ListedIdOf {
  const renamed = new Map<string, string>();
  for (const target of targets) {
    const oldRef = fileRefOf(target);
    if (oldRef !== null && oldRef !== target.modelId) renamed.set(oldRef, target.modelId);
  }
  return (modelId) => renamed.get(modelId) ?? modelId;
}

/**
 * A stored run as the screens show it: the model ids in its name ("Load test · ff-austen-mini:fp32
 * · …", each ` · ` part matched whole), its model revisions and its default-model setting named
 * by today's ids.
 */
export function runWithListedIds(run: RunRecord, listedIdOf: ListedIdOf): RunRecord {
  const { modelRevisions, settings } = run.config;
  const defaultModel = settings?.defaultModel;
  return {
    ...run,
    name: run.name.split(' · ').map(listedIdOf).join(' · '),
    config: {
      ...run.config,
      ...(modelRevisions && {
        modelRevisions: Object.fromEntries(
          Object.entries(modelRevisions).map(([modelId, revision]) => [listedIdOf(modelId), revision]),
        ),
      }),
      ...(settings &&
        typeof defaultModel === 'string' && {
          settings: { ...settings, defaultModel: listedIdOf(defaultModel) },
        }),
    },
  };
}

import { isRefTo, variantLabelOf } from '../../../src-main/runtime/model/variant-names';
import type { ModelEntry, SlotSnapshot } from '../../../src-main/service/contract/schemas';
import type { Timeline } from '../../../src-main/telemetry/timeline/schema';

/** What the chip says: the model, its variant, whether it is the bundled demo, where it ran. */
export interface AnswerModelFacts {
  name: string;
  variant: string | null;
  isDemo: boolean;
  where: string;
}

/**
 * The facts of the model that wrote an answer: from its timeline once finished (the canonical
 * `name:variant` and the slot that ran it), else from the forecast it was sent with.
 */
export function answerModelFacts(
  modelId: string,
  timeline: Timeline | null,
  models: readonly ModelEntry[],
  slots: readonly SlotSnapshot[],
): AnswerModelFacts {
  if (timeline?.remote)
    return {
      name: timeline.remote.serverModelId,
      variant: null,
      isDemo: false,
      where: `${timeline.remote.endpointName} (remote)`,
    };
  if (modelId.startsWith('@')) {
    const [endpoint, ...rest] = modelId.slice(1).split('/');
    return { name: rest.join('/') || modelId, variant: null, isDemo: false, where: `${endpoint} (remote)` };
  }
  // A stored answer may name its variant by the old id (the file's variant): isRefTo finds it.
  const entry = models.find((m) => isRefTo(m, modelId));
  const currentId = entry?.modelId ?? modelId;
  const slot =
    slots.find((s) => s.slotId === timeline?.slotId) ?? slots.find((s) => s.modelId === currentId) ?? null;
  const provider = slot?.executionProvider ?? 'cpu';
  return {
    name: entry?.name ?? modelId.split(':')[0]!,
    variant: variantLabelOf(entry?.variant ?? modelId.split(':')[1] ?? null, entry?.weightDtype ?? null),
    isDemo: entry?.isBundled ?? false,
    where: `this computer (${provider.toUpperCase()})`,
  };
}

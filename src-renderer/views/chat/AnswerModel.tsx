import type { ModelEntry, SlotSnapshot } from '../../../src-main/service/contract';
import type { Timeline } from '../../../src-main/telemetry/timeline/schema';
import { useSlice } from '../../store';

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
  const entry = models.find((m) => m.modelId === modelId);
  const slot =
    slots.find((s) => s.slotId === timeline?.slotId) ?? slots.find((s) => s.modelId === modelId) ?? null;
  const provider = slot?.executionProvider ?? 'cpu';
  return {
    name: entry?.name ?? modelId.split(':')[0]!,
    variant: entry?.variant ?? modelId.split(':')[1] ?? null,
    isDemo: entry?.isBundled ?? false,
    where: `this computer (${provider.toUpperCase()})`,
  };
}

/** The chip on every answer: "name · variant · where it ran", the demo model marked as such. */
export function AnswerModel(props: { modelId: string | null; timeline: Timeline | null }) {
  const models = useSlice('slots', (s) => s.models);
  const slots = useSlice('slots', (s) => s.slots);
  if (props.modelId === null) return null;
  const facts = answerModelFacts(props.modelId, props.timeline, models, slots);
  const parts = [facts.name, facts.variant, facts.where].filter((p): p is string => p !== null);
  return (
    <p
      className="answer-model"
      data-testid="answer-model"
      data-model-id={props.modelId}
      title={`Written by ${props.modelId}${facts.isDemo ? ', the small demo model bundled with First Frame' : ''}`}
    >
      {parts.join(' · ')}
      {facts.isDemo && <span className="tag">demo</span>}
    </p>
  );
}

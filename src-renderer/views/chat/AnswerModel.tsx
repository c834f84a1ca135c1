import type { Timeline } from '../../../src-main/telemetry/timeline/schema';
import { useSlice } from '../../store/react';
import { answerModelFacts } from './answer-model-facts';

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

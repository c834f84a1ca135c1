import type { ModelEntry } from '../../../src-main/service/contract';

/** Models by name, each that cannot load with the reason. */
export function ModelList(props: { models: readonly ModelEntry[]; testId?: string }) {
  return (
    <ul className="user-models" data-testid={props.testId}>
      {props.models.map((m) => (
        <li key={m.modelId} className={m.error ? 'broken' : undefined}>
          {m.displayName}
          {m.error ? <span className="notice error">cannot load: {m.error}</span> : null}
        </li>
      ))}
    </ul>
  );
}

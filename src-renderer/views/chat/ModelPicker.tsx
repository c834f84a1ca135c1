import { useSlice } from '../../store';

/**
 * The model the next message goes to: every variant as "name · variant (weight storage)", each
 * with its slot's status, or "broken: reason" when its files cannot load.
 */
export function ModelPicker() {
  const models = useSlice('slots', (s) => s.models);
  const slots = useSlice('slots', (s) => s.slots);
  const modelId = useSlice('chat', (s) => s.modelId);
  const setModel = useSlice('chat', (s) => s.setModel);
  const statusOf = (id: string) => slots.find((slot) => slot.modelId === id)?.status ?? 'empty';
  const usable = models.filter((m) => m.error === null);
  const fallback = usable.find((m) => m.isBundled && m.isDefaultVariant) ?? usable[0];
  const label = (m: (typeof models)[number]) =>
    m.weightDtype ? `${m.displayName} (${m.weightDtype})` : m.displayName;
  return (
    <label className="model-picker">
      Model
      <select
        data-testid="model-picker"
        value={modelId ?? ''}
        onChange={(event) => setModel(event.target.value || null)}
      >
        <option value="">
          {fallback ? `default: ${label(fallback)} — ${statusOf(fallback.modelId)}` : 'default'}
        </option>
        {models.map((m) => (
          <option key={m.modelId} value={m.modelId} disabled={m.error !== null}>
            {label(m)} — {m.error ? `broken: ${m.error}` : statusOf(m.modelId)}
          </option>
        ))}
      </select>
    </label>
  );
}

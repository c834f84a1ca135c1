import { useSlice } from '../../store';

/** The model the next message goes to, each with its slot's status (or why it cannot load). */
export function ModelPicker() {
  const models = useSlice('slots', (s) => s.models);
  const slots = useSlice('slots', (s) => s.slots);
  const modelId = useSlice('chat', (s) => s.modelId);
  const setModel = useSlice('chat', (s) => s.setModel);
  const statusOf = (id: string) => slots.find((slot) => slot.modelId === id)?.status ?? 'empty';
  const usable = models.filter((m) => m.error === null);
  const fallback = usable.find((m) => m.isBundled) ?? usable[0];
  return (
    <label className="model-picker">
      Model
      <select
        data-testid="model-picker"
        value={modelId ?? ''}
        onChange={(event) => setModel(event.target.value || null)}
      >
        <option value="">
          {fallback ? `default: ${fallback.displayName} — ${statusOf(fallback.modelId)}` : 'default'}
        </option>
        {models.map((m) => (
          <option key={m.modelId} value={m.modelId} disabled={m.error !== null}>
            {m.displayName} — {m.error ? `broken: ${m.error}` : statusOf(m.modelId)}
          </option>
        ))}
      </select>
    </label>
  );
}

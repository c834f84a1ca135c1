import type { Sampling } from '../../../src-main/service/contract';
import { useSlice } from '../../store';
import { NumberField } from '../../components';

const FIELDS: {
  key: keyof Omit<Sampling, 'stop' | 'ignoreEos'>;
  label: string;
  step: number;
  min: number;
  max: number;
}[] = [
  { key: 'temperature', label: 'temperature', step: 0.1, min: 0, max: 5 },
  { key: 'topK', label: 'top-k', step: 1, min: 0, max: 100_000 },
  { key: 'topP', label: 'top-p', step: 0.05, min: 0.05, max: 1 },
  { key: 'maxTokens', label: 'max tokens', step: 1, min: 1, max: 32_768 },
  { key: 'seed', label: 'seed', step: 1, min: 0, max: 2 ** 31 - 1 },
];

/** Sampling settings for the next message; an empty field leaves the model's default. */
export function SamplingPanel() {
  const sampling = useSlice('chat', (s) => s.sampling);
  const setSampling = useSlice('chat', (s) => s.setSampling);
  const toggleIgnoreEos = (isChecked: boolean) => {
    const next: Sampling = { ...sampling };
    if (isChecked) next.ignoreEos = true;
    else delete next.ignoreEos;
    setSampling(next);
  };
  const change = (key: keyof Sampling, value: number | null) => {
    const next: Sampling = { ...sampling };
    if (value === null) delete next[key];
    else (next as Record<string, number>)[key] = value;
    setSampling(next);
  };
  return (
    <details className="sampling">
      <summary>Sampling</summary>
      <div className="sampling-fields">
        {FIELDS.map((f) => (
          <NumberField
            key={f.key}
            label={f.label}
            step={f.step}
            min={f.min}
            max={f.max}
            placeholder="default"
            value={sampling[f.key]}
            onChange={(value) => change(f.key, value)}
          />
        ))}
        <label className="checkbox-field">
          <input
            type="checkbox"
            checked={sampling.ignoreEos === true}
            onChange={(e) => toggleIgnoreEos(e.target.checked)}
          />
          ignore end of turn (write to the token limit)
        </label>
      </div>
    </details>
  );
}

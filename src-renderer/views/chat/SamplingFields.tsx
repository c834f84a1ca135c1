import { SAMPLING_LIMITS } from '../../../src-main/runtime/sampling/limits';
import type { EffectiveSampling } from '../../../src-main/service/contract/chat-schemas';
import type { Sampling } from '../../../src-main/service/contract/schemas';
import { useSlice } from '../../store/react';
import { NumberField } from '../../components/NumberField';
import { regenerateNote } from './regenerate-note';
import { StopList } from './StopList';
import { showStopText } from './stop-text';

type NumericKey = keyof Omit<Sampling, 'stop' | 'ignoreEos'>;

/** A number field; `isOptIn` ones (off by default) are named in the summary only when set. */
interface Field {
  key: NumericKey;
  label: string;
  step: number;
  min: number;
  max?: number;
  hint: string;
  isOptIn?: boolean;
}

/** The bounds come from SAMPLING_LIMITS, the declaration the contract and the runtime check. */
const FIELDS: Field[] = [
  {
    key: 'temperature',
    label: 'temperature',
    step: 0.1,
    ...SAMPLING_LIMITS.temperature,
    hint: '0 always picks the likeliest token',
  },
  {
    key: 'topK',
    label: 'top-k',
    step: 1,
    ...SAMPLING_LIMITS.topK,
    hint: 'sample among the k likeliest (0: all)',
  },
  // The smallest top-p the field steps to; 0 itself is refused (a nucleus must hold something).
  {
    key: 'topP',
    label: 'top-p',
    step: 0.05,
    min: 0.05,
    max: SAMPLING_LIMITS.topP.max,
    hint: 'sample within this probability mass',
  },
  {
    key: 'minP',
    label: 'min-p',
    step: 0.01,
    min: SAMPLING_LIMITS.minP.min,
    max: SAMPLING_LIMITS.minP.max,
    hint: 'drop words less than this fraction as likely as the likeliest (0: off)',
    isOptIn: true,
  },
  // No max: the runtime's configured output limit bounds it, and refuses more with its limit named.
  { key: 'maxTokens', label: 'max tokens', step: 1, min: 1, hint: 'longest answer' },
  { key: 'seed', label: 'seed', step: 1, ...SAMPLING_LIMITS.seed, hint: 'same seed, same answer' },
  {
    key: 'repeatPenalty',
    label: 'repeat penalty',
    step: 0.05,
    min: SAMPLING_LIMITS.repeatPenalty.min,
    max: SAMPLING_LIMITS.repeatPenalty.max,
    hint: `make words from the last ${SAMPLING_LIMITS.repeatPenalty.numLastTokens} tokens less likely (1: off)`,
    isOptIn: true,
  },
  {
    key: 'presencePenalty',
    label: 'presence penalty',
    step: 0.1,
    ...SAMPLING_LIMITS.presencePenalty,
    hint: 'make any word already in the answer less likely (0: off)',
    isOptIn: true,
  },
  {
    key: 'frequencyPenalty',
    label: 'frequency penalty',
    step: 0.1,
    ...SAMPLING_LIMITS.frequencyPenalty,
    hint: 'make words less likely the more often the answer has them (0: off)',
    isOptIn: true,
  },
];

/** The summary's fields: the opt-in ones only when set to something other than their default. */
function summaryFields(sampling: Sampling, effective: EffectiveSampling | undefined): Field[] {
  return FIELDS.filter(
    (f) =>
      !f.isOptIn ||
      (sampling[f.key] !== undefined && sampling[f.key] !== effective?.[f.key as keyof EffectiveSampling]),
  );
}

/** The value the runtime uses for a field left empty. */
function effectiveOf(key: NumericKey, effective: EffectiveSampling | undefined): string {
  if (key === 'seed') return 'random';
  const value = effective?.[key];
  return value === undefined ? '' : String(value);
}

/**
 * Sampling settings of the conversation. An empty field shows (greyed) the value the runtime
 * will use, and the line below spells out what the next message is sent with.
 */
export function SamplingFields() {
  const sampling = useSlice('chat', (s) => s.settings.sampling);
  const effective = useSlice('chat', (s) => s.defaults?.effective);
  const setSampling = useSlice('chat', (s) => s.setSampling);
  const change = (key: NumericKey, value: number | null) => {
    const next: Sampling = { ...sampling };
    if (value === null) delete next[key];
    else next[key] = value;
    setSampling(next);
  };
  const toggleIgnoreEos = (isChecked: boolean) => {
    const next: Sampling = { ...sampling };
    if (isChecked) next.ignoreEos = true;
    else delete next.ignoreEos;
    setSampling(next);
  };
  const sentWith = summaryFields(sampling, effective)
    .map((f) => `${f.label} ${sampling[f.key] ?? effectiveOf(f.key, effective)}`)
    .join(' · ');
  return (
    <fieldset className="sampling-fields" data-testid="sampling-fields">
      <legend>Sampling</legend>
      {FIELDS.map((f) => (
        <span key={f.key} title={f.hint}>
          <NumberField
            label={f.label}
            step={f.step}
            min={f.min}
            max={f.max}
            placeholder={f.key === 'seed' ? 'random' : `${effectiveOf(f.key, effective)} · default`}
            value={sampling[f.key]}
            onChange={(value) => change(f.key, value)}
          />
        </span>
      ))}
      <StopList />
      <label className="checkbox-field">
        <input
          type="checkbox"
          checked={sampling.ignoreEos === true}
          onChange={(e) => toggleIgnoreEos(e.target.checked)}
        />
        ignore end of turn (write to the token limit)
      </label>
      <p className="muted small-text" data-testid="effective-sampling">
        Sent with: {sentWith}
        {sampling.stop?.length
          ? ` · stop at ${sampling.stop.map((t) => `"${showStopText(t)}"`).join(', ')}`
          : ''}
        {sampling.ignoreEos ? ' · ignoring end of turn' : ''}
      </p>
      <p className="muted small-text" data-testid="regenerate-note">
        {regenerateNote(sampling, effective)}
      </p>
    </fieldset>
  );
}

import { isRefTo } from '../../../src-main/runtime/model/variant-names';
import { settingRange } from '../../../src-main/runtime/settings/controls';
import { SETTINGS } from '../../../src-main/runtime/settings/declaration';
import type { SettingKey } from '../../../src-main/runtime/settings/declaration';
import type { SettingsState } from '../../../src-main/service/contract/settings-schemas';
import { useSlice } from '../../store/react';

/**
 * One setting's control, typed by its declaration: a number with its range and unit (and an
 * "auto"/"off" box where null has a meaning), an on/off box, or a pick among the models or
 * providers that exist. It edits the draft text, written the way the setting's flag reads it.
 */
export function SettingControl(props: {
  settingKey: SettingKey;
  text: string;
  providers: SettingsState['providers'];
  /** False while the provider probe still runs: the others are said to be checked, not missing. */
  areProvidersChecked: boolean;
  hasError: boolean;
  onChange(text: string): void;
}) {
  const spec = SETTINGS[props.settingKey];
  const common = {
    id: `setting-${props.settingKey}`,
    'data-testid': `setting-${props.settingKey}`,
    'aria-invalid': props.hasError,
    'aria-describedby': `setting-${props.settingKey}-help`,
  };
  if (spec.control === 'switch')
    return (
      <label className="checkbox-field">
        <input
          {...common}
          type="checkbox"
          checked={props.text === 'on'}
          onChange={(e) => props.onChange(e.target.checked ? 'on' : 'off')}
        />
        {props.text === 'on' ? 'on' : 'off'}
      </label>
    );
  if (spec.control === 'model') return <ModelSelect {...props} common={common} />;
  if (spec.control === 'provider')
    return (
      <select {...common} value={props.text} onChange={(e) => props.onChange(e.target.value)}>
        {props.providers.map((p) => (
          <option key={p.provider} value={p.provider} disabled={!p.isAvailable && p.provider !== props.text}>
            {p.provider.toUpperCase()}
            {p.isAvailable ? '' : unavailableWords(p.reason, props.areProvidersChecked)}
          </option>
        ))}
      </select>
    );
  const range = settingRange(props.settingKey)!;
  const isNull = spec.nullWord !== undefined && props.text === spec.nullWord;
  return (
    <span className="setting-number">
      <input
        {...common}
        type="number"
        min={range.min}
        max={range.max}
        step={spec.scale === undefined ? 1 : 'any'}
        value={isNull ? '' : props.text}
        disabled={isNull}
        onChange={(e) => props.onChange(e.target.value)}
      />
      {spec.unit && <span className="unit">{spec.unit}</span>}
      {spec.nullWord && (
        <label className="checkbox-field">
          <input
            type="checkbox"
            checked={isNull}
            onChange={(e) =>
              props.onChange(e.target.checked ? spec.nullWord! : String(Math.max(range.min, 1)))
            }
          />
          {spec.nullWord}
        </label>
      )}
    </span>
  );
}

/** Why a provider cannot be picked: still being checked, or the reason it cannot start here. */
function unavailableWords(reason: string | null, areProvidersChecked: boolean): string {
  if (!areProvidersChecked) return ' — checking whether it can start here…';
  return ` — not available here (${reason ?? 'cannot start'})`;
}

/** The default model: auto, or one of the models that load here (the demo marked as such). */
function ModelSelect(props: { text: string; common: Record<string, unknown>; onChange(text: string): void }) {
  const models = useSlice('slots', (s) => s.models).filter((m) => m.status === 'ok');
  // A setting kept from before may name a variant by its old id: shown as the variant it names.
  const named = models.find((m) => isRefTo(m, props.text));
  const isKnown = props.text === 'auto' || named !== undefined || models.some((m) => m.name === props.text);
  return (
    <select
      {...props.common}
      value={named?.modelId ?? props.text}
      onChange={(e) => props.onChange(e.target.value)}
    >
      <option value="auto">auto (the bundled model)</option>
      {models.map((m) => (
        <option key={m.modelId} value={m.modelId}>
          {m.displayName}
          {m.isBundled ? ' (demo)' : ''}
        </option>
      ))}
      {!isKnown && <option value={props.text}>{props.text} (not installed)</option>}
    </select>
  );
}

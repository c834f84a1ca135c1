import { SETTING_KEYS, SETTINGS } from '../../../src-main/runtime/settings';
import type { RunComparison } from '../../../src-main/service/contract';
import { useSlice } from '../../store';

/** A setting's name with the unit its recorded values are in ("K/V budget (MB)"), unless the name says it. */
function labelOf(key: string): string {
  const setting = SETTINGS[key as keyof typeof SETTINGS];
  if (!setting) return key;
  const isNamed = !setting.unit || setting.label.toLowerCase().includes(setting.unit);
  return isNamed ? setting.label : `${setting.label} (${setting.unit})`;
}

/**
 * One row per setting, one column per configuration; the settings that differ are highlighted
 * (and listed first), so the reader sees what the comparison varies before its figures. The
 * weights' content hashes show in Expert; Simple names the models.
 */
export function ConfigurationTable(props: { comparison: RunComparison }) {
  const { configurations, differingKeys } = props.comparison;
  const isExpert = useSlice('ui', (s) => s.preferences.viewMode === 'expert');
  const keys = [...differingKeys, ...SETTING_KEYS.filter((k) => !differingKeys.includes(k))];
  return (
    <table className="data-table" data-testid="configuration-table">
      <thead>
        <tr>
          <th scope="col">setting</th>
          {configurations.map((c) => (
            <th key={c.label} scope="col">
              {c.label} ({c.runIds.length} run{c.runIds.length > 1 ? 's' : ''})
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {keys.map((key) => {
          const isDiffering = differingKeys.includes(key);
          return (
            <tr key={key} className={isDiffering ? 'differs' : undefined} data-differs={isDiffering}>
              <th scope="row">{labelOf(key)}</th>
              {configurations.map((c) => (
                <td key={c.label}>{c.settings[key] ?? 'not recorded'}</td>
              ))}
            </tr>
          );
        })}
        <tr>
          <th scope="row">Served by</th>
          {configurations.map((c) => (
            <td key={c.label}>{c.servedBy ?? 'this machine'}</td>
          ))}
        </tr>
        <tr>
          <th scope="row" title="Content hash of each model's weights: the same hash means the same weights">
            {isExpert ? 'Model versions' : 'Models'}
          </th>
          {configurations.map((c) => (
            <td key={c.label} data-testid="configuration-models">
              {Object.entries(c.modelRevisions)
                .map(([model, revision]) => (isExpert ? `${model} ${revision.slice(0, 8)}` : model))
                .join(', ') || 'not recorded'}
            </td>
          ))}
        </tr>
      </tbody>
    </table>
  );
}

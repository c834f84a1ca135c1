import { SETTING_KEYS, SETTINGS } from '../../../src-main/runtime/settings';
import type { RunComparison } from '../../../src-main/service/contract';

/**
 * One row per setting, one column per configuration; the settings that differ are highlighted
 * (and listed first), so the reader sees what the comparison varies before its figures.
 */
export function ConfigurationTable(props: { comparison: RunComparison }) {
  const { configurations, differingKeys } = props.comparison;
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
              <th scope="row">{SETTINGS[key as keyof typeof SETTINGS]?.label ?? key}</th>
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
            Model versions
          </th>
          {configurations.map((c) => (
            <td key={c.label}>
              {Object.entries(c.modelRevisions)
                .map(([model, revision]) => `${model} ${revision.slice(0, 8)}`)
                .join(', ') || 'not recorded'}
            </td>
          ))}
        </tr>
      </tbody>
    </table>
  );
}
